"""onnxruntime.capi's layout, for scripts that import from it."""
