"""Generates the regression cases of this folder with Apache TVM (`pip install apache-tvm==0.27.0.post1
numpy`), in the conformance corpus format (`../conformance/README.md`): `module.py` is TVM's own
`mod.script()` of the case's source, `case.json` holds the inputs, the constants and what TVM's VM
returned. Run from anywhere: `python3 tests/regressions/generate.py`. Tests never need TVM."""

import json
import pathlib
import typing
import zlib

import numpy as np
import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

HERE = pathlib.Path(__file__).resolve().parent


def value(a):
    a = np.asarray(a)
    if a.dtype.kind == "f":
        data = []
        for x in a.ravel().astype(np.float64):
            data.append("nan" if np.isnan(x) else ("inf" if x == np.inf else ("-inf" if x == -np.inf else float(x))))
    else:
        data = [int(x) for x in a.ravel()]
    return {"tensor": {"dtype": str(a.dtype), "shape": list(a.shape), "data": data}}


def case(name, description, tags, source, consts, inputs, rtol=1e-5, atol=1e-5):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    consts = [c(rng) for c in consts]
    inputs = [i(rng) for i in inputs]
    metadata = {"ir.GenericConst": [relax.const(c, dtype=str(c.dtype)) for c in consts]}
    mod = tvm.script.from_source(
        source, extra_vars={"I": I, "R": R, "T": T, "TypeVar": typing.TypeVar, "metadata": metadata}
    )
    ex = relax.build(mod, target="llvm", exec_mode="bytecode")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    out = vm["main"](*[tvm.runtime.tensor(i) for i in inputs]).numpy()
    folder = HERE / name
    folder.mkdir(exist_ok=True)
    (folder / "module.py").write_text(mod.script() + "\n")
    case = {
        "name": name,
        "description": description,
        "tags": tags,
        "tvm_version": tvm.__version__,
        "rtol": rtol,
        "atol": atol,
        "calls": [{"function": "main", "inputs": [value(i) for i in inputs], "expected": value(out)}],
        "metadata": {"module.py": {"ir.GenericConst": [value(c) for c in consts]}},
        "roundtrip": {"module.py": "ok"},
    }
    (folder / "case.json").write_text(json.dumps(case, indent=1) + "\n")
    return folder, consts, inputs, out


BN_AFTER_CONV = """
@I.ir_module
class Module:
    @R.function
    def main(data_0: R.Tensor((1, 3, 12, 12), dtype="float32")) -> R.Tensor((1, 8, 12, 12), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((1, 8, 12, 12), dtype="float32") = R.nn.conv2d(data_0, metadata["ir.GenericConst"][0], strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
            lv1: R.Tuple(R.Tensor((1, 8, 12, 12), dtype="float32"), R.Tensor((8,), dtype="float32"), R.Tensor((8,), dtype="float32")) = R.nn.batch_norm(lv, metadata["ir.GenericConst"][1], metadata["ir.GenericConst"][2], metadata["ir.GenericConst"][3], metadata["ir.GenericConst"][4], axis=1, epsilon=9.9999997473787516e-06, center=True, scale=True, momentum=0.90000000000000002, training=False)
            lv2: R.Tensor((1, 8, 12, 12), dtype="float32") = lv1[0]
            gv: R.Tensor((1, 8, 12, 12), dtype="float32") = lv2
            R.output(gv)
        return gv
"""

if __name__ == "__main__":
    f32 = np.float32
    folder, consts, inputs, out = case(
        "bn_after_conv",
        "conv2d then inference batch_norm with ones/zeros gamma/beta constants (Inception v2's first "
        "layers, reduced): the legalized batch_norm reads four constants all named `rxplaceholder`",
        ["nn", "conv", "norm", "constant", "model"],
        BN_AFTER_CONV,
        [
            lambda r: (r.standard_normal((8, 3, 3, 3)) * 0.2).astype(f32),
            lambda r: np.ones(8, f32),
            lambda r: np.zeros(8, f32),
            lambda r: (r.standard_normal(8) * 0.1).astype(f32),
            lambda r: r.uniform(0.5, 2.0, 8).astype(f32),
        ],
        [lambda r: r.standard_normal((1, 3, 12, 12)).astype(f32)],
    )
