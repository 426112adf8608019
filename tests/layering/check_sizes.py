#!/usr/bin/env python3
"""Fails when a file under src/runtime/ is over 600 lines or a function in one is over 100.

The runtime is split along the pipeline's stages (docs/architecture.md); these
limits keep each stage a unit that can be read on its own. Functions are found
by their braces: a line ending in '{' at namespace depth that carries a
parameter list opens one, the brace that brings the depth back closes it.
Ends with 'N passed, N failed'.
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAX_FILE, MAX_FUNCTION = 600, 100
OPENS_BLOCK = re.compile(r'\s*(namespace|struct|class|enum|union|if|for|while|switch|else|do|})\b')


def code_of(line):
    """The line without comments and string or character literals."""
    line = re.sub(r'"([^"\\]|\\.)*"', '""', line)
    line = re.sub(r"'([^'\\]|\\.)*'", "''", line)
    return re.sub(r'//.*', '', line)


def long_functions(lines):
    depth, start, base = 0, None, 0
    for i, raw in enumerate(lines):
        code = code_of(raw)
        if (start is None and code.rstrip().endswith('{') and depth <= 1 and
                ('(' in code or ')' in code) and not OPENS_BLOCK.match(code)):
            start, base = i, depth
        depth += code.count('{') - code.count('}')
        if start is not None and depth <= base:
            if i - start + 1 > MAX_FUNCTION:
                yield start + 1, i - start + 1
            start = None


def main():
    passed, failed = 0, 0
    for path in sorted(glob.glob(os.path.join(ROOT, 'src', 'runtime', '**', '*.[ch]pp'),
                            recursive=True)):
        rel = os.path.relpath(path, ROOT)
        lines = open(path, encoding='utf-8').read().split('\n')
        problems = []
        if len(lines) - 1 > MAX_FILE:
            problems.append(f'{rel}: {len(lines) - 1} lines, over {MAX_FILE}')
        for line, length in long_functions(lines):
            problems.append(f'{rel}:{line}: a function of {length} lines, over {MAX_FUNCTION}')
        for p in problems:
            print(p)
        failed += bool(problems)
        passed += not problems
    print(f'{passed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
