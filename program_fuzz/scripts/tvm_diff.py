"""Checks opfuzz's random Relax programs against real Apache TVM.

    python program_fuzz/scripts/tvm_diff.py --seed S --count N [--dir DIR] [--xtask PATH]
    python program_fuzz/scripts/tvm_diff.py --promote SEED [--seed-dir DIR] [--out tests/tvm_ops]
    python program_fuzz/scripts/tvm_diff.py --kernels --seed S --count N [--dir DIR] [--xtask PATH]

Needs a Python with `apache-tvm==0.27.0.post1` and numpy, and a release build of xtask
(`cargo build --release -p xtask`); nothing in `cargo test` runs it. From the repository root:

1. `xtask fuzz-ops --emit DIR --seed S --count N` writes each seed's program as a conformance
   corpus folder (`module.py`, `case.json` with the inputs and how relaxjit's run ended);
2. for each folder, in a forked child (TVM's kernels can crash the process), TVM parses
   `module.py`, builds it for `llvm`, runs `main` on the inputs and writes what it returned into
   `case.json` (`expected`, or `expect_error` when the run raised). A program TVM does not parse
   or build is moved to `DIR/_tvm_rejected/`, one that crashes TVM to `DIR/_tvm_crashed/`: those
   are counted, not compared (but one that relaxjit ran is listed: relaxjit accepted a program
   TVM rejects); one TVM builds but fails to run where relaxjit already rejects it when
   compiling goes to `DIR/_both_reject/`; one TVM builds that meets a known TVM bug
   (`TVM_WRONG`) to `DIR/_tvm_wrong/` (one TVM rejects is counted as rejected, whatever it
   meets, so that relaxjit's rejection of it is not hidden behind the filter);
3. `xtask conformance --mode both --input module --dir DIR` runs relaxjit on the rest, in both
   exec modes, against TVM's results; every failing case is a divergence to look into.

`--kernels` does the same for kernel_fuzz's random TIR kernels (`xtask fuzz --emit`: those the
reference interpreter runs to the end): TVM builds each PrimFunc for `llvm` and runs it on the
inputs; every buffer must then hold what relaxjit's JIT left in it (bit for bit, any NaN
matching any NaN, -0.0 not matching 0.0). A kernel TVM does not build is counted as rejected. A kernel that differs is counted apart
when one of the variants `xtask fuzz --emit` writes beside it (`KERNEL_VARIANTS`: the same
computation with an operation TVM leaves undefined spelled out, or with what TVM miscompiles
avoided) gives in TVM what relaxjit gave.

`--promote SEED` turns one seed into a regression case of `tests/tvm_ops/`
(`opfuzz_<family>_s<SEED>`): TVM's printed module (`module.py`) and legalized module
(`legalized.py`, the corpus's legalization sequence) with TVM's result, as `generate.py` writes
its cases; both printed files are read back by TVM and must give the same result.
"""
import argparse, collections, json, os, re, shutil, subprocess, sys, typing

import numpy as np
import tvm
from tvm import relax
from tvm.script import ir as I, relax as R
from tvm.script import tirx as T


# Programs where TVM 0.27 is wrong (tests/tvm_ops/README.md): counted, moved to
# `DIR/_tvm_wrong/`, not compared. Each test takes the program's text, its inputs (the arrays,
# in parameter order, by name), its tensor constants and relaxjit's note.
Program = collections.namedtuple("Program", "text inputs consts note")

TVM_WRONG = [
    (lambda p: re.search(r"R\.nn\.(layer|group|instance)_norm\([^\n]*(center|scale)=False", p.text),
     "TVM's legalization ignores center=False / scale=False (always applies beta and gamma)"),
    (lambda p: re.search(r"R\.arg(max|min)\(", p.text) and any(0 in a.shape for a in p.inputs.values()),
     "TVM's argmax/argmin of an empty tensor returns whatever its memory held"),
    (lambda p: re.search(r"R\.take\(", p.text) and "out of bounds" in p.note,
     "TVM's take reads out of bounds for an index past the axis (mode fast, or an empty axis)"),
    (lambda p: any(dilated_transpose_of_non_finite(p, m) for m in re.finditer(
        r"R\.nn\.conv(1|2|3)d_transpose\((\w+|metadata\[\"ir\.GenericConst\"\]\[\d+\]),"
        r"[^\n]*dilation=\[([\d, ]+)\]", p.text)),
     "TVM's conv_transpose with a dilation multiplies the zeros of its dilated weight by the data: "
     "an Inf/NaN in the data spreads NaN to outputs no tap of it reaches"),
]


def dilated_transpose_of_non_finite(p, m):
    """Whether the `R.nn.conv*_transpose` call matched by `m` has a dilation other than 1 and
    data that may hold an Inf or NaN: a parameter or constant that does, or a value computed
    in the function when any input or constant does."""
    if all(int(d) == 1 for d in m.group(3).split(",")):
        return False
    data = m.group(2)
    const = re.fullmatch(r"metadata\[\"ir\.GenericConst\"\]\[(\d+)\]", data)
    if const:
        arrays = [p.consts[int(const.group(1))]]
    elif data in p.inputs:
        arrays = [p.inputs[data]]
    else:
        arrays = list(p.inputs.values()) + list(p.consts)
    return any(a.dtype.kind == "f" and not np.isfinite(a).all() for a in arrays)


def tvm_wrong(case_dir):
    text = open(os.path.join(case_dir, "module.py")).read()
    case = json.load(open(os.path.join(case_dir, "case.json")))
    signature = re.search(r"def main\((.*)\)", text)
    names = re.findall(r"(\w+): R\.", signature.group(1)) if signature else []
    inputs = collections.OrderedDict(zip(names, (tensor_of(v) for v in case["calls"][0]["inputs"])))
    consts = [tensor_of(c) for c in case.get("metadata", {}).get("module.py", {}).get("ir.GenericConst", [])]
    program = Program(text, inputs, consts, relaxjit_note(case_dir))
    return next((why for known, why in TVM_WRONG if known(program)), None)


def tensor_of(v):
    t = v["tensor"]
    data = [float(x) if isinstance(x, str) else x for x in t["data"]]
    return np.array(data, dtype=t["dtype"]).reshape(t["shape"])


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
    a = v.numpy() if hasattr(v, "numpy") else v
    dt = str(a.dtype)
    return {"tensor": {"dtype": dt, "shape": list(a.shape),
                       "data": [scalar_json(x, dt) for x in a.reshape(-1).tolist()]}}


def parse(text, consts):
    extra = {"I": I, "R": R, "T": T, "TypeVar": typing.TypeVar}
    if consts:
        extra["metadata"] = {"ir.GenericConst": [relax.const(c, dtype=str(c.dtype)) for c in consts]}
    return tvm.script.from_source(text, extra_vars=extra)


def last_line(e):
    lines = [l for l in str(e).splitlines() if l.strip()]
    msg = next((l for l in reversed(lines) if "rror" in l), lines[-1] if lines else type(e).__name__)
    return msg.strip()[:300]


def run_tvm(case_dir):
    """Builds and runs one emitted case in TVM, writes its result into case.json; returns
    "ok", "run-error: why" or "rejected: why"."""
    path = os.path.join(case_dir, "case.json")
    case = json.load(open(path))
    consts = [tensor_of(c) for c in case.get("metadata", {}).get("module.py", {}).get("ir.GenericConst", [])]
    try:
        mod = parse(open(os.path.join(case_dir, "module.py")).read(), consts)
        ex = tvm.compile(mod, target="llvm")
        vm = relax.VirtualMachine(ex, tvm.cpu())
    except Exception as e:  # noqa: BLE001 -- TVM rejected the program
        return "rejected: " + last_line(e)
    call = case["calls"][0]
    args = [tvm.runtime.tensor(tensor_of(v)) for v in call["inputs"]]
    try:
        call["expected"] = value_json(vm["main"](*args))
        status = "ok"
    except Exception as e:  # noqa: BLE001 -- the run raised: relaxjit must fail too
        call["expect_error"] = True
        call["error_message"] = last_line(e)
        status = "run-error: " + call["error_message"]
    case["tvm_version"] = tvm.__version__
    with open(path, "w") as f:
        json.dump(case, f)
        f.write("\n")
    return status


def run_isolated(f, *args):
    """`f(*args)` in a forked child, so that a crash of TVM ends the case, not the run."""
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
        return "crashed: signal %d" % os.WTERMSIG(code)
    return b"".join(chunks).decode() or "no status"


def relaxjit_note(case_dir):
    notes = json.load(open(os.path.join(case_dir, "case.json"))).get("notes", [])
    return next((n for n in notes if n.startswith("relaxjit: ")), "relaxjit: ?")


def diff(args):
    if os.path.exists(args.dir):
        shutil.rmtree(args.dir)
    subprocess.run([args.xtask, "fuzz-ops", "--emit", args.dir, "--seed", str(args.seed),
                    "--count", str(args.count)], check=True)
    counts = {"ok": 0, "run-error": 0, "rejected": 0, "crashed": 0, "wrong": 0, "both-reject": 0}
    accepted_rejected = []
    for name in sorted(os.listdir(args.dir)):
        d = os.path.join(args.dir, name)
        if not os.path.isfile(os.path.join(d, "case.json")):
            continue
        status = run_isolated(run_tvm, d)
        kind = status.split(":")[0]
        # A known TVM defect counts only where TVM built the program: where it rejects it
        # too, relaxjit's own rejection is checked like any other.
        why = tvm_wrong(d) if kind in ("ok", "run-error", "crashed") else None
        if why:
            status, kind = "wrong: " + why, "wrong"
        if kind == "run-error" and relaxjit_note(d).startswith("relaxjit: compile error"):
            # Both reject the program, TVM only when it runs it (a negative extent, say).
            kind = "both-reject"
        if kind not in counts:
            sys.exit("%s: %s" % (name, status))
        counts[kind] += 1
        if kind in ("rejected", "crashed", "wrong", "both-reject"):
            note = relaxjit_note(d)
            if kind == "rejected" and note == "relaxjit: ok":
                accepted_rejected.append("%s: TVM %s" % (name, status))
            aside = os.path.join(args.dir, {"rejected": "_tvm_rejected", "crashed": "_tvm_crashed",
                                            "wrong": "_tvm_wrong", "both-reject": "_both_reject"}[kind])
            os.makedirs(aside, exist_ok=True)
            shutil.move(d, os.path.join(aside, name))
            print("%s: TVM %s (%s)" % (name, status, note[:120]), flush=True)
    built = counts["ok"] + counts["run-error"]
    print("seeds %d..%d: TVM built %d (ran %d, raised %d), rejected %d, crashed %d, known TVM bug %d, "
          "raised where relaxjit does not compile %d"
          % (args.seed, args.seed + args.count, built, counts["ok"], counts["run-error"],
             counts["rejected"], counts["crashed"], counts["wrong"], counts["both-reject"]), flush=True)
    if not built:
        return 0
    out = subprocess.run([args.xtask, "conformance", "--mode", "both", "--input", "module", "--dir", args.dir],
                         capture_output=True, text=True)
    print(out.stdout + out.stderr, flush=True)
    for a in accepted_rejected:
        print("relaxjit accepts, TVM rejects:", a)
    return 0 if out.returncode == 0 else 1


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


def script(mod):
    text = mod.script()
    return text if text.endswith("\n") else text + "\n"


def constants(mod):
    """The tensor constants of `mod`'s Relax functions in the order the printer numbers them
    (functions by name, `main` last; bindings in order)."""
    found = []

    @relax.expr_functor.visitor
    class Collect(relax.PyExprVisitor):
        def visit_constant_(self, op):
            if len(op.data.shape) > 0 and not any(op.same_as(c) for c in found):
                found.append(op)

    names = sorted((gv.name_hint for gv, f in mod.functions.items() if isinstance(f, relax.Function)),
                   key=lambda n: (n == "main", n))
    for n in names:
        Collect().visit_expr(mod[n])
    return [c.data.numpy() for c in found]


def promote_case(seed, seed_dir, out):
    """Writes the regression case of `seed` (emitted to `seed_dir`) to `out`; returns its
    name or why not."""
    src = next(os.path.join(seed_dir, n) for n in os.listdir(seed_dir) if n.startswith("opfuzz_%06d_" % seed))
    case = json.load(open(os.path.join(src, "case.json")))
    family = case["tags"][1]
    consts = [tensor_of(c) for c in case.get("metadata", {}).get("module.py", {}).get("ir.GenericConst", [])]
    mod = parse(open(os.path.join(src, "module.py")).read(), consts)
    call = case["calls"][0]
    args = [tensor_of(v) for v in call["inputs"]]

    def result(m):
        vm = relax.VirtualMachine(tvm.compile(m, target="llvm"), tvm.cpu())
        try:
            return value_json(vm["main"](*[tvm.runtime.tensor(a) for a in args]))
        except Exception as e:  # noqa: BLE001
            return {"error": last_line(e)}

    expected = result(mod)
    leg = legalize(mod)
    metadata = {}
    for file, m in (("module.py", mod), ("legalized.py", leg)):
        cs = constants(m)
        again = parse(script(m), cs)
        if result(again) != expected:
            return "the printed %s gives another result in TVM" % file
        if cs:
            metadata[file] = {"ir.GenericConst": [value_json(c) for c in cs]}
    name = "opfuzz_%s_s%d" % (family, seed)
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    for file, m in (("module.py", mod), ("legalized.py", leg)):
        with open(os.path.join(d, file), "w") as f:
            f.write(script(m))
    if "error" in expected:
        call = {"function": "main", "inputs": call["inputs"], "expect_error": True, "error_message": expected["error"]}
    else:
        call = {"function": "main", "inputs": call["inputs"], "expected": expected}
    new = {
        "name": name,
        "description": "opfuzz %s program of seed %d (program_fuzz/scripts/tvm_diff.py)" % (family, seed),
        "tags": ["opfuzz", family],
        "tvm_version": tvm.__version__,
        "rtol": case["rtol"], "atol": case["atol"],
        "calls": [call],
        "roundtrip": {"module.py": "ok", "legalized.py": "ok"},
    }
    if metadata:
        new["metadata"] = metadata
    with open(os.path.join(d, "case.json"), "w") as f:
        json.dump(new, f)
        f.write("\n")
    return name


def run_kernel(case_dir):
    """Builds one emitted kernel (`xtask fuzz --emit`) with TVM, runs it on the inputs and
    compares every buffer with what relaxjit's JIT left in it; returns "agree",
    "differ: where", "tvm-wrong: why", "undefined: why" or "rejected: why"."""
    args, syms = [], {}
    for line in open(os.path.join(case_dir, "args.txt")).read().splitlines():
        parts = line.split()
        if parts[0] == "sym":
            syms[parts[1]] = tvm.tirx.Var(parts[1], parts[2])
        else:
            shape = [int(d) for d in parts[1].split(",")] if len(parts) > 1 else []
            args.append((parts[0], shape))
    status = compare_kernel(case_dir, "kernel.py", args, syms)
    if not status.startswith("differ"):
        return status
    for file, kind, why in KERNEL_VARIANTS:
        if os.path.exists(os.path.join(case_dir, file)) and compare_kernel(case_dir, file, args, syms) == "agree":
            return "%s: %s (%s)" % (kind, why, status)
    return status


# Variants of a kernel that `xtask fuzz --emit` writes beside it (kernel_fuzz/src/emit.rs), each
# the same computation with one more thing TVM gets wrong or leaves undefined taken out (each
# variant builds on the one before): a kernel that differs counts apart, as the kind and with
# the reason of the first variant on which TVM gives exactly what relaxjit gave
# (tests/tvm_ops/README.md, "Cases from the kernel fuzzer").
KERNEL_VARIANTS = [
    ("kernel_saturating.py", "undefined",
     "a float -> integer cast of NaN or of a value outside the integer type: TVM emits LLVM's "
     "fptosi/fptoui, poison there; relaxjit saturates (NaN -> 0)"),
    ("kernel_opaque_indices.py", "tvm-wrong",
     "TVM miscompiles a buffer index: its FlattenBuffer simplifies indices through IterMapSimplify, "
     "which drops the constant of floormod(c - i, n) / floordiv(c - i, n); TVM agrees once every "
     "index is written T.bitwise_or(index, 0) (and float -> integer casts are spelled out)"),
    ("kernel_opaque_floats.py", "tvm-wrong",
     "TVM's constant folder treats float arithmetic as exact: it folds 0 * x and 0 / x to 0 (wrong "
     "for x NaN, infinite or zero, and for a negative x, whose product is -0.0) and T.max/T.min of a NaN constant with std::max/std::min (the "
     "reverse of its generated code a > b ? a : b); TVM agrees once every float operand is bound to "
     "a variable v and used as T.copysign(v, v) (and the variants above are applied)"),
    ("kernel_opaque_casts.py", "tvm-wrong",
     "TVM's analyzer takes a narrowing integer cast of a non-negative value as non-negative "
     "(the cast wraps: T.Cast(\"int8\", i) for i >= 128 is negative) and lowers a floor modulo "
     "of it to a truncating one; TVM agrees once each such cast is written T.bitwise_or(cast, 0) "
     "(and the variants above are applied)"),
]


def compare_kernel(case_dir, file, args, syms):
    """Builds `file` of `case_dir` with TVM and compares its buffers after a run with
    relaxjit's; returns "agree", "differ: where" or "rejected: why"."""
    try:
        text = open(os.path.join(case_dir, file)).read()
        func = tvm.script.from_source(text, extra_vars={"T": T, **syms})
        lib = tvm.compile(func, target="llvm")
    except Exception as e:  # noqa: BLE001
        return "rejected: " + last_line(e)
    inputs = [np.fromfile(os.path.join(case_dir, "in_%d.bin" % i), dtype=dt).reshape(sh)
              for i, (dt, sh) in enumerate(args)]
    tensors = [tvm.runtime.tensor(a) for a in inputs]
    try:
        lib(*tensors)
    except Exception as e:  # noqa: BLE001
        return "differ: TVM raised " + last_line(e)
    for i, ((dt, sh), t) in enumerate(zip(args, tensors)):
        got = np.fromfile(os.path.join(case_dir, "out_%d.bin" % i), dtype=dt).reshape(sh)
        want = t.numpy()
        if dt.startswith("float"):
            # Bit for bit but for NaN payloads: -0.0 differs from 0.0.
            same = ((got == want) & (np.signbit(got) == np.signbit(want))) | (np.isnan(got) & np.isnan(want))
        else:
            same = got == want
        if not same.all():
            at = np.argwhere(~same)[0]
            return "differ: buffer %d %s element %s: relaxjit %r, TVM %r (%d of %d differ)" % (
                i, dt, tuple(at), got[tuple(at)], want[tuple(at)], (~same).sum(), same.size)
    return "agree"


def kernels(args):
    if os.path.exists(args.dir):
        shutil.rmtree(args.dir)
    subprocess.run([args.xtask, "fuzz", "--emit", args.dir, "--seed", str(args.seed),
                    "--count", str(args.count)], check=True)
    counts = {}
    for name in sorted(os.listdir(args.dir)):
        status = run_isolated(run_kernel, os.path.join(args.dir, name))
        kind = status.split(":")[0]
        counts[kind] = counts.get(kind, 0) + 1
        if kind != "agree":
            print("%s: %s" % (name, status[:400]), flush=True)
    print("kernel seeds %d..%d: %s" % (args.seed, args.seed + args.count,
                                       ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
    return 0 if set(counts) <= {"agree", "rejected", "undefined", "tvm-wrong"} else 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--dir", default="target/tvm_diff")
    ap.add_argument("--xtask", default="target/release/xtask")
    ap.add_argument("--promote", type=int, help="a seed to make a regression case of")
    ap.add_argument("--kernels", action="store_true", help="kernel_fuzz's TIR kernels instead")
    ap.add_argument("--seed-dir", default="target/tvm_diff_promote")
    ap.add_argument("--out", default="tests/tvm_ops")
    args = ap.parse_args()
    if args.kernels:
        sys.exit(kernels(args))
    if args.promote is None:
        sys.exit(diff(args))
    if os.path.exists(args.seed_dir):
        shutil.rmtree(args.seed_dir)
    subprocess.run([args.xtask, "fuzz-ops", "--emit", args.seed_dir, "--seed", str(args.promote)], check=True)
    print(run_isolated(promote_case, args.promote, args.seed_dir, args.out))


if __name__ == "__main__":
    main()
