/* A shared library that is not a Tessera plugin: it lacks the entry points. */
__attribute__((visibility("default"))) int not_a_tessera_plugin(void) { return 42; }
