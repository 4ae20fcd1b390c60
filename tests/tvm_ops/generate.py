"""Generates conformance cases from relaxjit's operator table with real Apache TVM.

    python tests/tvm_ops/generate.py [--cases relax/tests/ops/cases.txt] [--out tests/tvm_ops]

Needs a Python with `apache-tvm==0.27.0.post1` and numpy (`pip install apache-tvm==0.27.0.post1`
in a virtualenv); nothing in `cargo test` runs it, the cases it wrote are committed.

Every line of `relax/tests/ops/cases.txt` (one operator call, its arguments' struct info and
attributes, and what relaxjit infers) whose arguments are tensors (or literal prim values) and
whose result is a tensor or a tuple of tensors becomes one case in the conformance corpus format
(`tests/conformance/README.md`): TVM parses the call as a Relax function, infers its type and
prints it (`module.py`), legalizes it with the corpus's sequence (`legalized.py`), builds it for
`llvm` and runs it on seeded random inputs; what TVM's VM returned is `expected`. Symbolic
dimensions get fixed sizes for the inputs. A line TVM cannot parse, build or run is listed in
`skipped.txt` with TVM's message. The runner is the conformance runner:

    cargo xtask conformance --mode both --input both --dir tests/tvm_ops

so relaxjit's inference, legalization, kernels and both exec modes are checked against TVM's,
operator by operator, beyond what the hand-written corpus covers.
"""
import argparse, json, os, re, shutil, sys, typing, zlib

import numpy as np
import tvm
from tvm import relax
from tvm.script import ir as I, relax as R
from tvm.script import tirx as T

SIZES = {"n": 3, "m": 2, "h": 5, "w": 6, "k": 4, "b": 2}

# Where TVM 0.27 itself is wrong or outside what relaxjit takes, per case: the printed files left
# out of the case (the runner skips a case without the file it reads) and why. `None` leaves
# the whole case out.
KNOWN = {
    "op_slice_scatter_l397": (["legalized.py"],
        "TVM's legalized kernel takes rows of `a1` at indices clamped to 0..7 though `a1` has 2 "
        "rows: an out-of-bounds read (its values are discarded by R.where) that relaxjit's "
        "bounds checks report"),
    "op_grad_max_pool2d_backward_l364": (None,
        "output_grad (3, 3, 8, 8) is not the pooled shape (3, 2, 9, 9): TVM's kernels read "
        "outside their buffers; relaxjit rejects the call when it legalizes it"),
    "op_meshgrid_l400": (["module.py"],
        "TVM 0.27 infers (3, 4) for indexing=\"xy\" but its kernel returns (4, 3), so the printed "
        "annotation contradicts the value; relaxjit infers what the kernel returns"),
    "op_image_resize2d_l208": (["module.py"],
        "TVM infers float16 for out_dtype=\"float16\" but its legalization ignores out_dtype and "
        "returns float32; relaxjit returns the float16 tensor it infers"),
}


def split_top(s, sep):
    out, depth, cur, i = [], 0, "", 0
    while i < len(s):
        c = s[i]
        if c in "([{":
            depth += 1
        if c in ")]}":
            depth -= 1
        if depth == 0 and s.startswith(sep, i):
            out.append(cur)
            cur = ""
            i += len(sep)
            continue
        cur += c
        i += 1
    out.append(cur)
    return out


def dim_value(d):
    return int(eval(d, {}, {k: v for k, v in SIZES.items()}))


class Unsupported(Exception):
    pass


def parse_arg(si):
    """(annotation or None, inline expression or None, input spec or None)."""
    si = si.strip()
    if si.startswith("("):
        close = si.rindex(")")
        dims = [d.strip() for d in split_top(si[1:close], ",") if d.strip()]
        dt = si[close + 1:].strip()
        lo, hi = 0, 2
        if "@" in dt:
            dt, rng_text = dt.split("@")
            lo, hi = (int(v) for v in rng_text.split(".."))
        if dt == "?":
            raise Unsupported("unknown dtype")
        for d in dims:
            for name in re.findall(r"[A-Za-z_]\w*", d):
                if name not in SIZES:
                    raise Unsupported("symbol " + name)
        shown = ['"%s"' % d.replace(" ", "") if not re.fullmatch(r"\d+", d) else d for d in dims]
        shape = "(" + ", ".join(shown) + ("," if len(shown) == 1 else "") + ")"
        return 'R.Tensor(%s, "%s")' % (shape, dt), None, ("tensor", dt, [dim_value(d) for d in dims], lo, hi)
    m = re.fullmatch(r"prim (\w+)=(-?[\d.e+-]+)", si)
    if m:
        dt, v = m.groups()
        return None, "R.prim_value(T.%s(%s))" % (dt, v), None
    m = re.fullmatch(r"shape\(([-\d, ]*)\)", si)
    if m:
        dims = [d.strip() for d in m.group(1).split(",") if d.strip()]
        return None, "R.shape([%s])" % ", ".join(dims), None
    if si.startswith("tuple("):
        parts = [p for p in split_top(si[6:-1], ",") if p.strip()]
        ints = [re.fullmatch(r"prim int64=(-?\d+)", p.strip()) for p in parts]
        if parts and all(ints):
            # A tuple of integer prim values: the list of ints TVM's Python wrappers take.
            return None, "[%s]" % ", ".join(i.group(1) for i in ints), None
        anns, specs = [], []
        for p in parts:
            a, inline, spec = parse_arg(p)
            if a is None:
                raise Unsupported("inline value in a tuple")
            anns.append(a)
            specs.append(spec)
        return "R.Tuple(%s)" % ", ".join(anns), None, ("tuple", specs)
    raise Unsupported("argument " + si)


def attrs_py(a):
    parts = re.split(r"[ ,]+(?=\w+=)", a.strip())
    return ", ".join(p.strip().rstrip(",") for p in parts if p.strip())


def random_value(spec, rng):
    if spec[0] == "tuple":
        return [random_value(s, rng) for s in spec[1]]
    _, dt, shape, lo, hi = spec
    if dt.startswith("float"):
        arr = rng.standard_normal(shape).astype(dt)
    elif dt == "bool":
        arr = rng.integers(0, 2, shape).astype(bool)
    else:
        # Small non-negative integers by default: valid indices for the table's small shapes.
        arr = rng.integers(lo, hi, shape).astype(dt)
    return arr


def to_tvm(v):
    if isinstance(v, list):
        return [to_tvm(x) for x in v]
    return tvm.runtime.tensor(v)


def scalar_json(x, dt):
    if dt == "bool":
        return bool(x)
    if dt.startswith("int") or dt.startswith("uint"):
        return int(x)
    x = float(x)
    if x != x:
        return "nan"
    if x in (float("inf"), float("-inf")):
        return "inf" if x > 0 else "-inf"
    return x


def value_json(v):
    if isinstance(v, (list, tuple)) or type(v).__name__ in ("Array", "Tuple"):
        return {"tuple": [value_json(x) for x in v]}
    if hasattr(v, "numpy"):
        a = v.numpy()
        dt = str(a.dtype)
        return {"tensor": {"dtype": dt, "shape": list(a.shape),
                           "data": [scalar_json(x, dt) for x in a.reshape(-1).tolist()]}}
    if isinstance(v, np.ndarray):
        dt = str(v.dtype)
        return {"tensor": {"dtype": dt, "shape": list(v.shape),
                           "data": [scalar_json(x, dt) for x in v.reshape(-1).tolist()]}}
    raise Unsupported("result of type %s" % type(v).__name__)


def has_float16(v):
    return "float16" in json.dumps(v)


def script(mod):
    text = mod.script()
    return text if text.endswith("\n") else text + "\n"


def legalize(mod):
    with tvm.target.Target({"kind": "llvm"}):
        seq = tvm.transform.Sequential([
            relax.transform.LegalizeOps(),
            relax.transform.AnnotateTIROpPattern(),
            relax.transform.FoldConstant(),
            relax.transform.FuseOps(),
            relax.transform.FuseTIR(),
        ])
        return seq(mod)


def build_case(name, src, specs, callsrc, where, out_dir):
    """Builds and runs one case in TVM and writes its folder; returns "ok" or why not."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    try:
        mod = tvm.script.from_source(src, extra_vars={"I": I, "R": R, "T": T})
        inputs = [random_value(s, rng) for s in specs]
        if callsrc.startswith("R.bucketize("):
            inputs[1] = np.sort(inputs[1])  # the boundaries must be sorted
        ex = relax.build(mod, target="llvm")
        vm = relax.VirtualMachine(ex, tvm.cpu())
        out = vm["main"](*[to_tvm(x) for x in inputs])
        expected = value_json(out)
        leg = legalize(mod)
        # Both printed files must read back and give the same result in TVM.
        for text in (script(mod), script(leg)):
            again = tvm.script.from_source(text, extra_vars={"I": I, "R": R, "T": T, "TypeVar": typing.TypeVar})
            vm2 = relax.VirtualMachine(relax.build(again, target="llvm"), tvm.cpu())
            if value_json(vm2["main"](*[to_tvm(x) for x in inputs])) != expected:
                raise Unsupported("the printed module gives another result in TVM")
    except Exception as e:  # TVM could not parse, build or run it
        lines = [l for l in str(e).splitlines() if l.strip()]
        msg = next((l for l in lines if "rror" in l), lines[0] if lines else type(e).__name__)
        return msg.strip()[:200]
    omit, note = KNOWN.get(name, ([], None))
    if omit is None:
        return "left out: " + note
    d = os.path.join(out_dir, name)
    os.makedirs(d, exist_ok=True)
    for file, mod_ in (("module.py", mod), ("legalized.py", leg)):
        if file not in omit:
            with open(os.path.join(d, file), "w") as f:
                f.write(script(mod_))
    # Float results: float16 to 1e-2; float32 to 1e-4 (sums of many products, as in matmul
    # and normalizations, round differently in another accumulation order).
    tol = 1e-2 if has_float16(expected) or any(has_float16(value_json(x)) for x in inputs) else 1e-4
    case = {
        "name": name,
        "description": "%s (%s)" % (callsrc, where),
        "tags": ["op"],
        "tvm_version": tvm.__version__,
        "rtol": tol, "atol": tol,
        "calls": [{"function": "main", "inputs": [value_json(x) for x in inputs], "expected": expected}],
        "roundtrip": {"module.py": "ok", "legalized.py": "ok"},
    }
    if note:
        case["notes"] = ["left out %s: %s" % (", ".join(omit), note)]
    with open(os.path.join(d, "case.json"), "w") as f:
        json.dump(case, f)
        f.write("\n")
    return "ok"


def run_isolated(f, *args):
    """`f(*args)` in a forked child, so that a crash of TVM (an integer division by zero raises
    SIGFPE in its kernels) skips the case instead of ending the run."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            status = f(*args)
        except BaseException as e:  # noqa: BLE001
            status = "generator error: %r" % e
        os.write(write, status.encode())
        os._exit(0)
    os.close(write)
    chunks = []
    while True:
        c = os.read(read, 65536)
        if not c:
            break
        chunks.append(c)
    os.close(read)
    _, code = os.waitpid(pid, 0)
    if os.WIFSIGNALED(code):
        return "TVM crashed (signal %d)" % os.WTERMSIG(code)
    return b"".join(chunks).decode() or "no status"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", default="relax/tests/ops/cases.txt")
    ap.add_argument("--more", default="tests/tvm_ops/more_calls.txt")
    ap.add_argument("--out", default="tests/tvm_ops")
    args = ap.parse_args()
    made, skipped = [], []
    lines = [(args.cases, ln, l) for ln, l in enumerate(open(args.cases), 1)]
    lines += [(args.more, ln, l) for ln, l in enumerate(open(args.more), 1)]
    for source, ln, line in lines:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        lhs, exp = line.split("=>", 1) if "=>" in line else (line, "(from TVM)")
        exp = exp.strip()
        if exp.startswith("error:") or exp == "any" or exp.startswith("prim") or exp.startswith("shape"):
            continue
        call, attrs = (lhs.split(" | ", 1) + [""])[:2] if " | " in lhs else (lhs, "")
        call = call.strip()
        op, _, args_text = call.partition(" ")
        if op.startswith(("R.vm.", "R.memory.alloc", "R.memory.kill", "R.builtin.", "R.call_", "R.make_closure",
                          "R.invoke_", "R.print", "R.assert_op", "R.null_value", "R.to_vdevice",
                          "R.hint_on_device", "R.shape_of", "R.shape_to_tensor", "R.tensor_to_shape")):
            continue
        prefix = "op" if source == args.cases else "call"
        name = "%s_%s_l%d" % (prefix, re.sub(r"[^a-z0-9]+", "_", op[2:].lower()).strip("_"), ln)
        try:
            params, argexprs, specs = [], [], []
            for i, si in enumerate(a for a in args_text.split(" ; ") if a.strip()):
                ann, inline, spec = parse_arg(si)
                if ann is None:
                    argexprs.append(inline)
                else:
                    params.append("a%d: %s" % (i, ann))
                    argexprs.append("a%d" % i)
                    specs.append(spec)
        except Unsupported as e:
            skipped.append("%s: %s (line %d: %s)" % (name, e, ln, line))
            continue
        kw = attrs_py(attrs) if attrs else ""
        callsrc = "%s(%s%s)" % (op, ", ".join(argexprs), (", " + kw) if kw else "")
        src = "@I.ir_module\nclass Module:\n    @R.function\n    def main(%s):\n        gv = %s\n        return gv\n" % (", ".join(params), callsrc)
        status = run_isolated(build_case, name, src, specs, callsrc, "%s line %d" % (os.path.basename(source), ln), args.out)
        if status != "ok":
            skipped.append("%s: %s (line %d: %s)" % (name, status, ln, line))
            continue
        made.append(name)
        print("made", name, flush=True)
    with open(os.path.join(args.out, "skipped.txt"), "w") as f:
        f.write("# operator-table lines TVM %s could not parse, build or run, or this generator does not take\n" % tvm.__version__)
        f.write("".join(s + "\n" for s in skipped))
    print("%d cases, %d skipped" % (len(made), len(skipped)))


if __name__ == "__main__":
    main()
