"""How much of the TVMScript in Apache TVM's own tests relaxjit reads and compiles.

    python3 relax/scripts/tvm_test_modules.py TVM_CHECKOUT/tests/python/relax [--relaxjit BIN] [--out DIR]

TVM's tests hold thousands of modules written by hand in every style TVMScript allows
(`@tvm.script.ir_module`, Python operators on Relax values, tuples as shapes, docstrings, ...).
This script takes every top-level-most class or function decorated `@I.ir_module`,
`@tvm.script.ir_module`, `@R.function` or `@T.prim_func` out of the test files (Python's `ast`,
no TVM needed), writes each as a TVMScript file under `--out` with the usual imports, and runs
`relaxjit fmt` (read and print) and `relaxjit inspect` (our whole pipeline to bytecode) on it.
It prints how many read and compile, and the most frequent first error lines, with the file
names for each so that a category can be looked at.

Many modules are not meant to stand alone (they use Python variables of the test, `R.emit_te`,
GPU targets, packed functions the test registers, or are deliberately ill-formed), so 100% is not
the goal; the categories say what is missing. Needs only Python 3 and a built `relaxjit`
(`cargo build --release`).
"""

import argparse
import ast
import collections
import os
import re
import subprocess
import sys
import textwrap

HEADER = "from tvm.script import ir as I\nfrom tvm.script import relax as R\nfrom tvm.script import tir as T\n\n"
DECORATORS = {
    "I.ir_module",
    "tvm.script.ir_module",
    "ir_module",
    "R.function",
    "relax.function",
    "T.prim_func",
    "tir.prim_func",
}


def decorator_names(node):
    for d in node.decorator_list:
        yield ast.unparse(d.func if isinstance(d, ast.Call) else d)


def extract(src_root, out):
    os.makedirs(out, exist_ok=True)
    written = []
    for dirpath, _, files in os.walk(src_root):
        for fn in sorted(files):
            if not fn.endswith(".py"):
                continue
            text = open(os.path.join(dirpath, fn), encoding="utf-8").read()
            try:
                tree = ast.parse(text)
            except SyntaxError:
                continue
            lines = text.splitlines()

            def visit(node, parents):
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, (ast.ClassDef, ast.FunctionDef)):
                        if any(n in DECORATORS for n in decorator_names(child)):
                            start = min(d.lineno for d in child.decorator_list) - 1
                            body = textwrap.dedent("\n".join(lines[start : child.end_lineno]))
                            name = f"{fn[:-3]}__{'__'.join(parents + [child.name])}_{child.lineno}.py"
                            with open(os.path.join(out, name), "w", encoding="utf-8") as f:
                                f.write(HEADER + body + "\n")
                            written.append(name)
                            continue
                        visit(child, parents + [child.name])
                    else:
                        visit(child, parents)

            visit(tree, [])
    return written


def first_error(stderr):
    line = stderr.strip().splitlines()[0] if stderr.strip() else "(no message)"
    line = re.sub(r"^relaxjit: (cannot compile )?\S+?\.py(:\d+:\d+)?: ", "", line)
    return re.sub(r"`[^`]*`", "`X`", line)[:110]


def run(binary, command, path):
    try:
        p = subprocess.run([binary, command, path], capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        return "timed out after 30 s"
    if p.returncode == 0:
        return None
    if p.returncode < 0 or p.returncode > 1:
        return f"exit status {p.returncode} (crash?)"
    return first_error(p.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tests", help="TVM's tests/python/relax (or any folder of Python files)")
    ap.add_argument("--relaxjit", default=os.path.join("target", "release", "relaxjit"))
    ap.add_argument("--out", default=os.path.join("target", "tvm_test_modules"))
    ap.add_argument("--top", type=int, default=25, help="error categories to print per stage")
    args = ap.parse_args()
    names = extract(args.tests, args.out)
    print(f"{len(names)} modules from {args.tests} in {args.out}")
    read_errors, compile_errors = collections.defaultdict(list), collections.defaultdict(list)
    for name in names:
        path = os.path.join(args.out, name)
        e = run(args.relaxjit, "fmt", path)
        if e is not None:
            read_errors[e].append(name)
            continue
        e = run(args.relaxjit, "inspect", path)
        if e is not None:
            compile_errors[e].append(name)
    n_read = len(names) - sum(map(len, read_errors.values()))
    n_compiled = n_read - sum(map(len, compile_errors.values()))
    for title, errors in (("read", read_errors), ("compile", compile_errors)):
        print(f"\nfirst errors ({title}):")
        for msg, files in sorted(errors.items(), key=lambda kv: -len(kv[1]))[: args.top]:
            print(f"{len(files):6}  {msg}  (e.g. {files[0]})")
    print(f"\nread: {n_read} of {len(names)}; compiled: {n_compiled} of {len(names)}")
    crashes = [f for m, fs in list(read_errors.items()) + list(compile_errors.items()) if "crash" in m or "timed out" in m for f in fs]
    if crashes:
        print(f"crashes or hangs: {len(crashes)}: {' '.join(crashes[:10])}")
        sys.exit(1)


if __name__ == "__main__":
    main()
