#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Cut the tree into the patch series that goes to the perf maintainers.

    scripts/make-series.py --pristine DIR [--out DIR] [--work DIR]
        [--def FILE] [--cover FILE] [--author 'Name <mail>'] FILE...

FILE... are our files (the Makefile passes its OURS).  series/series.txt
says, patch by patch, which of them each patch adds (whole) and which
patches/*.patch it carries, with its subject and message; series/cover.txt
is the cover letter.  Every file of ours and every patches/*.patch must be
in exactly one patch (the patches that add our objects and C suites to
perf's build, named by Build-lines:, are split instead: each patch gets
the lines of the files it adds), or this stops with one line per problem.

Each patch's tree is worked out from the pristine tools/perf (DIR), the
patches it and those before it carry, applied in their numeric order, and
the files it and those before it add; it is committed in a scratch git
repository under tools/perf/ (paths as in a kernel tree, so that git am
applies the series there) and the series comes out of git format-patch,
with a cover letter, in --out (build/series).  Commit dates and identity
are fixed (the date of the tree's last commit, the author of --author or
of git's configuration), so that the same tree gives the same series.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
errors = []


def error(msg):
    errors.append(msg)


def die(msg):
    print(f'make series: {msg}', file=sys.stderr)
    sys.exit(1)


class Patch:
    """One patch of the series, as series.txt defines it."""

    def __init__(self, line):
        self.line = line          # where its %% is in series.txt
        self.subject = None
        self.body = ''
        self.files = []           # our files it adds, in tree paths
        self.carry = None         # patches/NNNN it carries, or None

    def where(self):
        return f'series/series.txt:{self.line}'


def read_headers(lines, start, where):
    """Key: value lines from start up to a blank line; a line that starts
    with white space continues the one before; '#' lines are comments.
    Returns ([(key, value, line number)], index of the line after)."""
    headers = []
    i = start
    while i < len(lines) and lines[i].strip() and \
            lines[i].rstrip('\n') != '%%':
        text = lines[i].rstrip('\n')
        if text.startswith('#'):
            i += 1
            continue
        if text[0] in ' \t' and headers:
            key, value, n = headers[-1]
            headers[-1] = (key, value + ' ' + text.strip(), n)
        else:
            m = re.match(r'([A-Za-z-]+):\s*(.*)$', text)
            if not m:
                die(f'{where}:{i + 1}: not a "Key: value" line: {text}')
            headers.append((m.group(1).lower(), m.group(2).strip(), i + 1))
        i += 1
    return headers, i


def expand_names(value, where):
    """'util/a.[ch] util/b.c' -> ['util/a.c', 'util/a.h', 'util/b.c']."""
    names = []
    for word in value.split():
        if word.endswith('.[ch]'):
            names += [word[:-4] + 'c', word[:-4] + 'h']
        elif any(c in word for c in '*?['):
            die(f'{where}: {word}: name each file (a.[ch] for a pair), no globs')
        else:
            names.append(word)
    return names


def parse_series(path):
    """The Build-lines patches, our Build files and the list of patches of
    series.txt."""
    with open(path) as f:
        lines = f.readlines()
    build_lines = []
    build_files = []
    patches = []
    i = 0
    # The preamble: comments, Build-lines: and Build-file: headers, up to
    # the first %%.
    while i < len(lines) and lines[i].rstrip('\n') != '%%':
        text = lines[i].rstrip('\n')
        m = re.match(r'Build-(lines|file):\s*(\S+)\s*$', text)
        if m and m.group(1) == 'lines':
            build_lines.append((m.group(2), i + 1))
        elif m:
            build_files.append((m.group(2), i + 1))
        elif text and not text.startswith('#'):
            die(f'series/series.txt:{i + 1}: before the first %%, only comments, Build-lines: and Build-file:')
        i += 1
    while i < len(lines):
        # lines[i] is a %% line
        p = Patch(i + 1)
        headers, i = read_headers(lines, i + 1, 'series/series.txt')
        for key, value, n in headers:
            if key == 'subject':
                p.subject = value
            elif key == 'files':
                p.files += expand_names(value, f'series/series.txt:{n}')
            elif key == 'carry':
                p.carry = value
            else:
                die(f'series/series.txt:{n}: unknown header {key}')
        body = []
        while i < len(lines) and lines[i].rstrip('\n') != '%%':
            body.append(lines[i].rstrip())
            i += 1
        while body and not body[0]:
            body.pop(0)
        while body and not body[-1]:
            body.pop()
        p.body = '\n'.join(body)
        patches.append(p)
    return build_lines, build_files, patches


def message_body(lines):
    """A message's lines, each '@include FILE' line replaced by FILE."""
    out = []
    for line in lines:
        m = re.match(r'@include (\S+)$', line)
        if m:
            # A measurement's output, as it was written: indented.
            with open(os.path.join(TOP, m.group(1))) as f:
                out += ['  ' + l if l.strip() else ''
                        for l in f.read().rstrip('\n').split('\n')]
        else:
            out.append(line.rstrip())
    return '\n'.join(out).strip('\n')


def patch_message(path):
    """Subject and message of a patch file with mail headers, else None."""
    with open(path, errors='replace') as f:
        text = f.read()
    head = re.split(r'^---$|^diff --git |^--- a/', text, maxsplit=1,
                    flags=re.M)[0]
    lines = head.split('\n')
    subject = None
    i = 0
    while i < len(lines) and lines[i]:
        m = re.match(r'Subject:\s*(.*)$', lines[i])
        if m:
            subject = m.group(1)
            while i + 1 < len(lines) and lines[i + 1][:1] in (' ', '\t') \
                    and lines[i + 1]:
                i += 1
                subject += ' ' + lines[i].strip()
        i += 1
    if subject is None:
        return None
    subject = re.sub(r'^\[PATCH[^\]]*\]\s*', '', subject)
    return subject, message_body(lines[i:])


def patched_files(path):
    """The files a -p1 patch changes, relative to tools/perf."""
    files = []
    with open(path, errors='replace') as f:
        for line in f:
            m = re.match(r'\+\+\+ b/(\S+)', line)
            if m and m.group(1) not in files:
                files.append(m.group(1))
    return files


# Which of our files an added line of a Build-lines patch belongs to.
def build_line_file(target, line):
    if target in ('util/Build', 'tests/Build') or target.endswith('/Build'):
        m = re.search(r'\+=\s*(\S+)\.o\s*$', line)
        if m:
            return f'{os.path.dirname(target)}/{m.group(1)}.c'
        # A directory of ours, with a Build file of its own.
        m = re.search(r'\+=\s*(\S+)/\s*$', line)
        if m:
            return f'{os.path.dirname(target)}/{m.group(1)}/Build'
    elif target == 'tests/builtin-test.c':
        m = re.search(r'&suite__(\w+),', line)
        if m:
            return 'tests/' + m.group(1).replace('_', '-') + '.c'
    elif target == 'tests/tests.h':
        m = re.search(r'DECLARE_SUITE\((\w+)\);', line)
        if m:
            return 'tests/' + m.group(1).replace('_', '-') + '.c'
    return None


def build_lines_of(path):
    """[(target file, added line, our file)] of a Build-lines patch."""
    out = []
    target = None
    with open(path) as f:
        for n, line in enumerate(f, 1):
            m = re.match(r'\+\+\+ b/(\S+)', line)
            if m:
                target = m.group(1)
                continue
            if line.startswith('+') and target:
                ours = build_line_file(target, line[1:].rstrip('\n'))
                if ours is None:
                    error(f'{path}:{n}: cannot tell whose line this is: {line.strip()}')
                else:
                    out.append((target, line[1:], ours))
    return out


def git(repo, *args, env=None, capture=False):
    r = subprocess.run(['git', '-C', repo] + list(args), env=env,
                       stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode:
        die(f'git {" ".join(args)}: {r.stderr.strip()}')
    return r.stdout if capture else None


def identity(author):
    if not author:
        author = os.environ.get('SERIES_AUTHOR')
    if not author:
        r = subprocess.run(['git', '-C', TOP, 'var', 'GIT_AUTHOR_IDENT'],
                           capture_output=True, text=True)
        author = re.sub(r'\s+\d+ [+-]\d{4}$', '', r.stdout.strip())
    m = re.match(r'(.+?)\s*<([^>]+)>$', author or '')
    if not m:
        die('no author: give --author "Name <mail>" or SERIES_AUTHOR, or set git user.name and user.email')
    return m.group(1), m.group(2)


def series_date():
    if os.environ.get('SOURCE_DATE_EPOCH'):
        return os.environ['SOURCE_DATE_EPOCH'] + ' +0000'
    r = subprocess.run(['git', '-C', TOP, 'log', '-1', '--format=%ct %cz'],
                       capture_output=True, text=True)
    if r.returncode == 0 and r.stdout.strip():
        return r.stdout.strip()
    return '0 +0000'


def main():
    ap = argparse.ArgumentParser(description='write the perf kmem patch series')
    ap.add_argument('--pristine', required=True,
                    help="the tools/perf the series applies to")
    ap.add_argument('--out', default=os.path.join(TOP, 'build/series'))
    ap.add_argument('--work', default=os.path.join(TOP, 'build/series-work'))
    ap.add_argument('--def', dest='definition',
                    default=os.path.join(TOP, 'series/series.txt'))
    ap.add_argument('--cover', default=os.path.join(TOP, 'series/cover.txt'))
    ap.add_argument('--author')
    ap.add_argument('--subject-prefix', default='PATCH')
    ap.add_argument('ours', nargs='+', help='our files (the Makefile\'s OURS)')
    args = ap.parse_args()

    os.chdir(TOP)
    pristine = os.path.abspath(args.pristine)
    if not os.path.isfile(os.path.join(pristine, 'Makefile.perf')):
        die(f'{pristine} is not a tools/perf directory')

    build_lines, build_files, patches = parse_series(args.definition)
    ours = sorted(set(args.ours))
    repo_patches = sorted(os.path.join('patches', p)
                          for p in os.listdir('patches') if p.endswith('.patch'))

    # Every file of ours and every patch in exactly one place.
    where = {}
    for p in patches:
        if p.carry and p.files:
            error(f'{p.where()}: a patch either carries patches/NNNN or adds files, not both')
        if not p.carry and not p.files:
            error(f'{p.where()}: a patch with neither Files: nor Carry:')
        for f in p.files:
            if f in where:
                error(f'{f} is in two patches: {where[f]} and {p.where()}')
            where[f] = p.where()
            if f not in ours:
                error(f'{p.where()}: {f} is not a file of the tree (OURS)')
        if p.carry:
            if p.carry in where:
                error(f'{p.carry} is in two patches: {where[p.carry]} and {p.where()}')
            where[p.carry] = p.where()
            if p.carry not in repo_patches:
                error(f'{p.where()}: {p.carry} does not exist')
    for b, n in build_lines:
        if b in where:
            error(f'{b} is in two places: {where[b]} and series/series.txt:{n}')
        where[b] = f'series/series.txt:{n}'
        if b not in repo_patches:
            error(f'series/series.txt:{n}: {b} does not exist')
    for b, n in build_files:
        if b in where:
            error(f'{b} is in two places: {where[b]} and series/series.txt:{n}')
        where[b] = f'series/series.txt:{n}'
        if b not in ours:
            error(f'series/series.txt:{n}: {b} is not a file of the tree (OURS)')
    for f in ours:
        if f not in where:
            error(f'{f} is in no patch of series/series.txt: add it to the Files: of one')
    for f in repo_patches:
        if f not in where:
            error(f'{f} is in no patch of series/series.txt: Carry: it in one, or name it in Build-lines:')

    # Subjects and messages.
    for p in patches:
        if p.carry and p.carry in repo_patches:
            msg = patch_message(p.carry)
            if msg and (p.subject or p.body):
                error(f'{p.where()}: {p.carry} has its own Subject: and message; give none here')
            elif msg:
                p.subject, p.body = msg
            elif not p.subject:
                error(f'{p.where()}: {p.carry} has no Subject: line; give the Subject: and message here')
        if not p.subject:
            error(f'{p.where()}: no Subject:')
        elif not re.match(r'perf [\w -]+: [A-Z]', p.subject):
            error(f'{p.where()}: subject "{p.subject}" is not "perf <area>: <Capital>..."')
        if p.subject and len(p.subject) > 75:
            error(f'{p.where()}: subject longer than 75 characters: {p.subject}')
        if not p.body:
            error(f'{p.where()}: no message: say why, with numbers')

    lines_of = {b: build_lines_of(b) for b, _ in build_lines
                if b in repo_patches}
    for b, entries in lines_of.items():
        for target, line, f in entries:
            if f not in ours:
                error(f'{b}: the line "{line.strip()}" of {target} is for {f}, which is not in the tree')
    if errors:
        for e in errors:
            print(f'make series: {e}', file=sys.stderr)
        sys.exit(1)

    # The upstream files any patch changes, or that a file of ours replaces.
    upstream = set()
    for f in repo_patches:
        upstream.update(patched_files(f))
    for f in ours:
        if os.path.exists(os.path.join(pristine, f)):
            upstream.add(f)
    for f in sorted(upstream):
        if not os.path.exists(os.path.join(pristine, f)):
            die(f'{f}: changed by a patch, but not in {pristine}')

    # The scratch repository: the upstream files the series changes, at
    # the paths they have in a kernel tree, then a commit per patch.
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    repo = os.path.join(work, 'repo')
    base = os.path.join(work, 'base')
    os.makedirs(repo)
    for f in upstream:
        os.makedirs(os.path.dirname(os.path.join(base, f)), exist_ok=True)
        shutil.copy2(os.path.join(pristine, f), os.path.join(base, f))
    name, mail = identity(args.author)
    date = series_date()
    env = dict(os.environ, GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=mail,
               GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=mail,
               GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    git(repo, 'init', '-q')
    git(repo, 'config', 'core.autocrlf', 'false')
    sync(base, repo)
    git(repo, 'add', '-A', '-f')
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'tools/perf as the series finds it', env=env)
    root = git(repo, 'rev-parse', 'HEAD', capture=True).strip()

    # All the patches, in their order, as make applies them: one that
    # does not apply, or only with fuzz, is named here.
    state = os.path.join(work, 'state')
    shutil.copytree(base, state, symlinks=False)
    for f in repo_patches:
        r = apply_patch(state, f)
        failed, fuzzy, target = [], [], '?'
        for line in r.stdout.splitlines():
            m = re.match(r'patching file (\S+)', line)
            if m:
                target = m.group(1)
            m = re.match(r'Hunk #(\d+) (FAILED|succeeded) at (\d+)(.*fuzz.*)?', line)
            if m and m.group(2) == 'FAILED':
                failed.append(f'{target} hunk {m.group(1)} (line {m.group(3)})')
            elif m and m.group(4):
                fuzzy.append(f'{target} hunk {m.group(1)}')
        if r.returncode:
            error(f'{f} does not apply to {pristine}: ' +
                  (', '.join(failed) or r.stdout.strip() + r.stderr.strip()))
        elif fuzzy:
            print(f'make series: warning: {f} applies to {pristine} only with fuzz '
                  f'({", ".join(fuzzy)}): check the patches it makes', file=sys.stderr)
    if errors:
        for e in errors:
            print(f'make series: {e}', file=sys.stderr)
        sys.exit(1)

    added = []
    carried = set()
    for n, p in enumerate(patches, 1):
        added += p.files
        if p.carry:
            carried.add(p.carry)
        state = os.path.join(work, 'state')
        shutil.rmtree(state, ignore_errors=True)
        shutil.copytree(base, state, symlinks=False)
        for f in repo_patches:
            if f in lines_of or f in carried:
                r = apply_patch(state, f)
                if r.returncode:
                    die(f'{p.where()}: patch {n} ({p.subject}): {f} does not apply '
                        f'without the patches the series carries after it')
        present = set(added)
        for b, _ in build_files:
            if write_build_file(state, b, present):
                present.add(b)
        for b, entries in lines_of.items():
            for target, line, f in entries:
                if f in present:
                    continue
                path = os.path.join(state, target)
                with open(path) as fh:
                    text = fh.read()
                if text.count(line) < 1:
                    die(f'{b}: line "{line.strip()}" not found in {target}')
                with open(path, 'w') as fh:
                    fh.write(text.replace(line, '', 1))
        for f in added:
            dst = os.path.join(state, f)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(f, dst)
        sync(state, repo)
        git(repo, 'add', '-A', '-f')
        if not git(repo, 'status', '--porcelain', capture=True).strip():
            die(f'{p.where()}: patch {n} ({p.subject}) changes nothing')
        msg = p.subject + '\n\n' + p.body + '\n'
        r = subprocess.run(['git', '-C', repo, 'commit', '-q', '--cleanup=verbatim',
                            '-F', '-'], input=msg, text=True, env=env,
                           capture_output=True)
        if r.returncode:
            die(f'commit of patch {n}: {r.stderr.strip()}')

    # The series, then the cover letter's subject and message.
    out = os.path.abspath(args.out)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    git(repo, 'format-patch', '-q', '-B', '-M', '--cover-letter',
        f'--subject-prefix={args.subject_prefix}', '-o', out,
        f'{root}..HEAD', env=env)
    cover_subject, cover_body = read_cover(args.cover)
    cover = os.path.join(out, '0000-cover-letter.patch')
    with open(cover) as f:
        text = f.read()
    if '*** SUBJECT HERE ***' not in text or '*** BLURB HERE ***' not in text:
        die('git format-patch wrote a cover letter without its placeholders')
    text = text.replace('*** SUBJECT HERE ***', cover_subject, 1)
    text = text.replace('*** BLURB HERE ***', cover_body, 1)
    with open(cover, 'w') as f:
        f.write(text)

    files = sorted(os.listdir(out))
    total = 0
    for f in files[1:]:
        with open(os.path.join(out, f)) as fh:
            total += sum(1 for _ in fh)
    print(f'  SERIES  {len(patches)} patches and a cover letter in '
          f'{os.path.relpath(out, TOP)} ({total:,} lines)')


def write_build_file(tree, build, present):
    """A Build file of ours, with the lines of the objects present: a
    patch builds what it adds.  False when it has none of them yet."""
    kept = []
    for line in open(build):
        ours = build_line_file(build, line.rstrip('\n'))
        if ours is None or ours in present:
            kept.append(line)
    if not any(build_line_file(build, l.rstrip('\n')) for l in kept):
        return False
    dst = os.path.join(tree, build)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(dst, 'w') as f:
        f.writelines(kept)
    return True


def apply_patch(tree, patch):
    """patch(1) of a patches/NNNN in tree; its output says what failed."""
    return subprocess.run(['patch', '-p1', '-N', '-r', '-', '--no-backup-if-mismatch',
                           '-d', tree, '-i', os.path.join(TOP, patch)],
                          capture_output=True, text=True)


def sync(src, repo):
    """Make repo/tools/perf hold exactly the files of src."""
    dst = os.path.join(repo, 'tools/perf')
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst, symlinks=False)


def read_cover(path):
    with open(path) as f:
        lines = f.read().split('\n')
    headers, i = read_headers([l + '\n' for l in lines], 0, os.path.relpath(path, TOP))
    subject = dict((k, v) for k, v, _ in headers).get('subject')
    if not subject:
        die(f'{path}: no Subject: line')
    return subject, message_body(lines[i:])


if __name__ == '__main__':
    main()
