#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a vmlinux of a kallsyms file's kernel symbols, for --vmlinux.

  kmem_vmlinux.py KALLSYMS BUILD_ID OUT

A machine without the vmlinux of its kernel can still give perf kmem a
vmlinux of it: an x86-64 ELF executable whose .symtab has the kernel's
text symbols of KALLSYMS (t, T, w and W, not a module's), each a
function up to the next one, and whose .note.gnu.build-id is BUILD_ID,
the recording kernel's (perf buildid-list -i perf.data), as perf's
loader wants it.  Of aliases at one address it keeps the last in the
file, the one perf kmem's reader of a kallsyms takes, so that a callsite
gets the same name from either.  .text holds no bytes (SHT_NOBITS): it
spans the symbols, from the first to a page past the last.  _text is an
absolute symbol at its kallsyms address, perf's reference for the
relocation of the kernel's map.

Prints "N symbols, text START-END".
"""

import struct
import sys

STB_GLOBAL = 1
STT_NOTYPE = 0
STT_FUNC = 2
SHN_ABS = 0xfff1
SHT_SYMTAB = 2
SHT_STRTAB = 3
SHT_NOTE = 7
SHT_NOBITS = 8
SHF_ALLOC = 2
SHF_EXECINSTR = 4
ET_EXEC = 2
EM_X86_64 = 62
NT_GNU_BUILD_ID = 3


class Strings:
    """An ELF string table: offsets of NUL-terminated names."""

    def __init__(self):
        self.data = bytearray(b'\0')

    def add(self, s):
        off = len(self.data)
        self.data += s.encode() + b'\0'
        return off


def sym(name, info, shndx, value, size):
    return struct.pack('<IBBHQQ', name, info, 0, shndx, value, size)


def shdr(name, stype, flags, addr, off, size, link=0, info=0, align=1, entsize=0):
    return struct.pack('<IIQQQQIIQQ', name, stype, flags, addr, off, size,
                       link, info, align, entsize)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    path, build_id, out = sys.argv[1:]
    by_addr, text = {}, None
    for line in open(path):
        f = line.split()
        if len(f) != 3 or f[1] not in 'tTwW' or not int(f[0], 16):
            continue
        by_addr[int(f[0], 16)] = f[2]
        if f[2] == '_text':
            text = int(f[0], 16)
    if not by_addr or text is None:
        sys.exit('kmem_vmlinux: no kernel text symbols, or no _text, in %s' % path)
    addrs = sorted(by_addr)
    start, end = addrs[0], addrs[-1] + 4096

    strtab = Strings()
    symtab = bytearray(sym(0, 0, 0, 0, 0))
    for i, a in enumerate(addrs):
        size = (addrs[i + 1] if i + 1 < len(addrs) else end) - a
        symtab += sym(strtab.add(by_addr[a]), STB_GLOBAL << 4 | STT_FUNC, 1, a, size)
    symtab += sym(strtab.add('_text'), STB_GLOBAL << 4 | STT_NOTYPE, SHN_ABS, text, 0)
    bid = bytes.fromhex(build_id)
    note = struct.pack('<III', 4, len(bid), NT_GNU_BUILD_ID) + b'GNU\0' + bid
    note += bytes(-len(note) % 4)

    shstr = Strings()
    names = [shstr.add(s) for s in
             ('.text', '.note.gnu.build-id', '.symtab', '.strtab', '.shstrtab')]
    data = bytearray(64)
    offs = []
    for blob, align in ((note, 4), (symtab, 8), (strtab.data, 1), (shstr.data, 1)):
        data += bytes(-len(data) % align)
        offs.append(len(data))
        data += blob
    data += bytes(-len(data) % 8)
    shoff = len(data)
    data += shdr(0, 0, 0, 0, 0, 0)
    data += shdr(names[0], SHT_NOBITS, SHF_ALLOC | SHF_EXECINSTR, start, 0x1000,
                 end - start, align=4096)
    data += shdr(names[1], SHT_NOTE, SHF_ALLOC, 0, offs[0], len(note), align=4)
    data += shdr(names[2], SHT_SYMTAB, 0, 0, offs[1], len(symtab), link=4, info=1,
                 align=8, entsize=24)
    data += shdr(names[3], SHT_STRTAB, 0, 0, offs[2], len(strtab.data))
    data += shdr(names[4], SHT_STRTAB, 0, 0, offs[3], len(shstr.data))
    ident = b'\x7fELF' + bytes([2, 1, 1]) + bytes(9)
    data[0:64] = struct.pack('<16sHHIQQQIHHHHHH', ident, ET_EXEC, EM_X86_64, 1,
                             start, 0, shoff, 0, 64, 56, 0, 64, 6, 5)
    with open(out, 'wb') as f:
        f.write(data)
    print('%d symbols, text %#x-%#x' % (len(addrs), start, end))


main()
