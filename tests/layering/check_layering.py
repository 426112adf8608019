#!/usr/bin/env python3
"""Fails when a file under src/ or include/ includes a header its room may not.

Rooms and their allowed includes are in allowed_includes.txt beside this file.
Each `#include "..."` that names a file under src/ or include/ is checked; the
output names the file, line and rule broken. Ends with 'N passed, N failed'.
"""
import fnmatch
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCE_EXT = ('.cpp', '.hpp', '.h', '.cu', '.cuh', '.inc')


def read_table(path):
    allowed, exceptions = {}, []
    for lineno, raw in enumerate(open(path), 1):
        line = raw.split('#', 1)[0].strip() if not raw.startswith('exception:') else raw.strip()
        if not line:
            continue
        if line.startswith('exception:'):
            body = line[len('exception:'):].split('#', 1)[0].strip()
            src, _, dst = body.partition('->')
            if not dst:
                sys.exit(f'{path}:{lineno}: an exception needs "FILE -> HEADER"')
            exceptions.append([src.strip(), dst.strip(), 0, lineno])
            continue
        room, _, rest = line.partition(':')
        allowed[room.strip()] = set(rest.split())
    return allowed, exceptions


def room_of(rel):
    """The room of a path relative to the repository root, or None."""
    parts = rel.split('/')
    if parts[0] == 'include':
        return 'include'
    if parts[0] != 'src' or len(parts) < 3:
        return None
    if parts[1] == 'providers':
        return 'providers/' + parts[2] if len(parts) > 3 else None
    return parts[1]


def header_path(inc):
    """Where an include resolves: under src/ or include/ (None: elsewhere)."""
    for base in ('src', 'include'):
        if os.path.exists(os.path.join(ROOT, base, inc)):
            return f'{base}/{inc}'
    return None


def allowed_room(table, room, target):
    if room == target:
        return True
    key = 'providers/*' if room.startswith('providers/') else room
    if key not in table:
        return False
    rooms = table[key]
    # Another provider is never allowed, whatever the table says.
    if target.startswith('providers/'):
        return False
    return target in rooms


def main():
    table, exceptions = read_table(os.path.join(HERE, 'allowed_includes.txt'))
    checked = failed = 0
    for base in ('src', 'include'):
        for dirpath, _, files in os.walk(os.path.join(ROOT, base)):
            for name in sorted(files):
                if not name.endswith(SOURCE_EXT):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, ROOT)
                room = room_of(rel)
                if room is None:
                    continue
                for lineno, line in enumerate(open(path, errors='replace'), 1):
                    m = INCLUDE_RE.match(line)
                    if not m:
                        continue
                    target_path = header_path(m.group(1))
                    if target_path is None:
                        continue
                    checked += 1
                    target = room_of(target_path)
                    if target is None or allowed_room(table, room, target):
                        continue
                    excused = False
                    for e in exceptions:
                        if e[0] == rel and fnmatch.fnmatch(m.group(1), e[1]):
                            e[2] += 1
                            excused = True
                    if not excused:
                        failed += 1
                        print(f'{rel}:{lineno}: room {room} may not include {m.group(1)} '
                              f'(room {target}); see tests/layering/allowed_includes.txt')
    for src, dst, hits, lineno in exceptions:
        if hits == 0:
            failed += 1
            print(f'allowed_includes.txt:{lineno}: the exception {src} -> {dst} no longer '
                  'occurs: remove it')
    print(f'{checked - failed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
