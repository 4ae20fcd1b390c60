"""Regenerates tests/user_style/*/case.json and tvm_printed.py from the hand-written module.py
files, with real Apache TVM (0.27) as the oracle.

    python tests/user_style/generate.py            # all cases
    python tests/user_style/generate.py NAME ...   # some cases

For each case folder holding a `module.py` written as a person writes TVMScript (import lines,
nested calls, unannotated bindings, string dimensions), it imports the file as Python (so TVM's
own parser reads it), writes `tvm_printed.py` (exactly `mod.script()` plus one newline), builds
the module with `relax.build(..., target="llvm", exec_mode="bytecode")`, writes its listing
(`tvm_exec.txt`, `as_text()`) and `case.json` in
the format of the conformance corpus (see tests/conformance/README.md) with the inputs below and
the outputs TVM's VM returned. Inputs are drawn from numpy's default_rng seeded with the CRC32 of
the case name, so runs are reproducible.
"""

import importlib.util
import json
import math
import os
import re
import sys
import zlib

import numpy as np
import tvm
from tvm import relax

HERE = os.path.dirname(os.path.abspath(__file__))

# name -> (description, tags, calls, pre_passes); a call is (function, [input spec, ...]).
# An input spec is ("float32", (2, 3)) for a random tensor, ("bool", ()) for a random bool
# tensor, {"shape": [...]} for a shape value, {"int": n} for a prim value.
F32 = "float32"
CASES = {
    "mlp_issue": ("the MLP of issue 9: nested calls in a dataflow block, a string dim",
                  ["model", "dynamic_shape", "dataflow"],
                  [("main", [(F32, (5, 16)), (F32, (16, 4)), (F32, (4,))])], []),
    "return_nested_expr": ("a returned expression of nested calls", ["elementwise"],
                           [("main", [(F32, (3, 4)), (F32, (3, 4))])], []),
    "nested_tuple_return": ("a nested tuple with calls in it, returned", ["tuple"],
                            [("main", [(F32, (2, 3))])], []),
    "call_tir_nested_args": ("call_tir of a hand-written prim_func with a call in its argument tuple",
                             ["call_tir", "tir"], [("main", [(F32, (4, 4))])], []),
    "if_nested_branches": ("If whose branch binds a nested call", ["control_flow"],
                           [("main", [(F32, (2, 4)), ("bool", ())]),
                            ("main", [(F32, (2, 4)), ("bool", ())])], []),
    "if_computed_condition": ("If on a condition computed from nested calls", ["control_flow"],
                              [("main", [(F32, (3,))]), ("main", [(F32, (3,))])], []),
    "closure_inner_function": ("an inner function called with nested arguments", ["closure"],
                               [("main", [(F32, (2, 3))])], ["LambdaLift"]),
    "helper_via_cls": ("a helper called through cls. with nested calls as arguments", ["function"],
                       [("main", [(F32, (4,)), (F32, (4,))])], []),
    "helper_via_class_name": ("a private helper called as Module.square", ["function", "dynamic_shape"],
                              [("main", [(F32, (5,))])], []),
    "string_dims_reduce": ("string dimensions and a reduction of a nested call", ["dynamic_shape", "reduction"],
                           [("main", [(F32, (3, 4))])], []),
    "match_cast_dynamic": ("match_cast to a string dimension, then nested calls", ["match_cast", "dynamic_shape"],
                           [("main", [(F32, (3, 4))])], []),
    "consts_scalar": ("scalar R.const in argument position", ["constant"],
                      [("main", [(F32, (2, 2))])], []),
    "comments_everywhere": ("comments on every line kind", ["dataflow"],
                            [("main", [(F32, (2, 3))])], []),
    "tuple_get_item_nested": ("indexing a call's tuple result in argument position", ["tuple", "shape"],
                              [("main", [(F32, (2, 4))])], []),
    "tuple_binding_fields": ("a tuple binding with calls as fields", ["tuple"],
                             [("main", [(F32, (3,))])], []),
    "concat_tuple_arg": ("a tuple of calls as an operator argument", ["tuple", "shape"],
                         [("main", [(F32, (2, 3))])], []),
    "dataflow_two_outputs": ("two dataflow outputs, used by a returned expression", ["dataflow"],
                             [("main", [(F32, (4,)), (F32, (4,))])], []),
    "softmax_layer": ("softmax of a matmul with a string batch dim", ["nn", "dynamic_shape"],
                      [("main", [(F32, (3, 8)), (F32, (8, 5))])], []),
    "layer_norm_chain": ("layer_norm of a nested add", ["norm"],
                         [("main", [(F32, (2, 6)), (F32, (6,)), (F32, (6,)), (F32, (6,))])], []),
    "reshape_shape_param": ("reshape to an R.Shape parameter", ["shape_value", "shape"],
                            [("main", [(F32, (3, 4)), {"shape": [6, 2]}])], []),
    "int_arith_nested": ("int32 arithmetic with an int constant", ["int"],
                         [("main", [("int32", (5,)), ("int32", (5,))])], []),
    "astype_nested": ("nested casts", ["dtype", "float16"],
                      [("main", [(F32, (2, 3))])], []),
    "variance_nested": ("variance as one nested expression", ["reduction", "statistics"],
                        [("main", [(F32, (3, 5))])], []),
    "where_compare": ("where of a comparison and calls", ["comparison"],
                      [("main", [(F32, (6,)), (F32, (6,))])], []),
    "prim_func_string_dim": ("a hand-written symbolic prim_func called on a nested call", ["call_tir", "tir", "dynamic_shape"],
                             [("main", [(F32, (7,))])], []),
    "helper_nested_twice": ("a helper's result as the helper's argument", ["function", "linalg"],
                            [("main", [(F32, (2, 2)), (F32, (2, 2))])], []),
    "annotated_and_not": ("annotated (with string dims) and unannotated bindings", ["dynamic_shape"],
                          [("main", [(F32, (4, 3))])], []),
    "permute_flatten": ("flatten of a permute of a call", ["shape"],
                        [("main", [(F32, (2, 3, 4))])], []),
    "tint64_match_cast_reshape": ("T.int64() declared in the body, bound by match_cast, used in a shape",
                                  ["match_cast", "dynamic_shape", "shape"],
                                  [("main", [(F32, (3, 4))])], []),
    "clip_by_max_min": ("maximum of minimum of a scaled tensor", ["binary"],
                        [("main", [(F32, (8,))])], []),
    "two_dataflow_blocks": ("two dataflow blocks with a binding between", ["dataflow"],
                            [("main", [(F32, (3, 3))])], []),
    "attention_scores": ("one attention head written as nested calls", ["attention", "model"],
                         [("main", [(F32, (4, 8)), (F32, (4, 8)), (F32, (4, 8))])], []),
    "numpy_import_and_comments": ("import numpy/tvm lines and comments", ["elementwise"],
                                  [("main", [(F32, (2, 2))])], []),
    "numpy_consts": ("R.const of np.array / zeros / ones / full / np.float32, dtypes as TVM narrows them",
                     ["elementwise", "constants"],
                     [("main", [(F32, (2, 3)), ("int32", (2, 3))])], []),
    "if_tuple_result": ("If whose branches give tuples", ["control_flow", "tuple"],
                        [("main", [(F32, (3,)), ("bool", ())]), ("main", [(F32, (3,)), ("bool", ())])], []),
    "closure_captures": ("an inner function capturing a parameter, called nested", ["closure"],
                         [("main", [(F32, (3,)), (F32, (3,))])], ["LambdaLift"]),
    "topk_int64_indices": ("topk with int64 indices", ["sort", "dtype"],
                           [("main", [(F32, (3, 5))])], []),
    "shape_to_tensor_dynamic": ("shape_to_tensor of symbolic, unknown and computed shapes",
                                ["shape_value", "dynamic_shape"],
                                [("main", [(F32, (4, 3)), (F32, (2, 5))])], []),
    "broadcast_compound_dim": ("broadcast_to a T.max(n, 3) dimension no input binds",
                               ["dynamic_shape", "shape"],
                               [("main", [(F32, (3,)), (F32, (3,))]),
                                ("main", [(F32, (3,)), (F32, (1,))])], []),
    "where_const_fused": ("where with a constant branch, fused with its neighbours", ["fusion", "constant"],
                          [("main", [(F32, (2, 4))])], []),
}


def value_json(v):
    if isinstance(v, tvm.runtime.Tensor) or hasattr(v, "numpy"):
        a = v.numpy()
        return {"tensor": tensor_json(a)}
    if isinstance(v, (tuple, list)) or type(v).__name__ in ("Array", "ADT", "Tuple"):
        if type(v).__name__ == "ShapeTuple" or type(v).__name__ == "Shape":
            return {"shape": [int(x) for x in v]}
        return {"tuple": [value_json(x) for x in v]}
    if isinstance(v, bool):
        return {"bool": v}
    if isinstance(v, int):
        return {"int": v}
    if isinstance(v, float):
        return {"float": v}
    raise TypeError(f"cannot encode {type(v)}")


def scalar_json(x, kind):
    if kind == "f":
        x = float(x)
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return x
    if kind == "b":
        return bool(x)
    return int(x)


def tensor_json(a):
    kind = a.dtype.kind
    return {
        "dtype": str(a.dtype),
        "shape": list(a.shape),
        "data": [scalar_json(x, kind) for x in a.reshape(-1).tolist()],
    }


def make_input(spec, rng):
    if isinstance(spec, dict):
        if "shape" in spec:
            return tvm.runtime.ShapeTuple(spec["shape"]), spec
        if "int" in spec:
            return spec["int"], spec
        raise ValueError(spec)
    dtype, shape = spec
    if dtype == "bool":
        a = rng.integers(0, 2, size=shape).astype("bool")
    elif dtype.startswith("int"):
        a = rng.integers(-5, 6, size=shape).astype(dtype)
    else:
        a = rng.standard_normal(size=shape).astype(dtype)
    return tvm.runtime.tensor(a), {"tensor": tensor_json(a)}


def load(path, name):
    spec = importlib.util.spec_from_file_location(f"user_style_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod.Module


def generate(name):
    description, tags, calls, pre_passes = CASES[name]
    folder = os.path.join(HERE, name)
    mod = load(os.path.join(folder, "module.py"), name)
    with open(os.path.join(folder, "tvm_printed.py"), "w") as f:
        f.write(mod.script() + "\n")
    built = mod
    for p in pre_passes:
        built = getattr(relax.transform, p)()(built)
    ex = relax.build(built, target="llvm", exec_mode="bytecode")
    with open(os.path.join(folder, "tvm_exec.txt"), "w") as f:
        f.write(ex.as_text())
    vm = relax.VirtualMachine(ex, tvm.cpu())
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    out_calls = []
    for fname, specs in calls:
        args, jargs = zip(*[make_input(s, rng) for s in specs]) if specs else ((), ())
        got = vm[fname](*args)
        out_calls.append({"function": fname, "inputs": list(jargs), "expected": value_json(got)})
    case = {
        "name": name,
        "description": description,
        "tags": tags,
        "tvm_version": tvm.__version__,
        "rtol": 1e-05,
        "atol": 1e-05,
        "calls": out_calls,
    }
    if pre_passes:
        case["pre_passes"] = pre_passes
    text = json.dumps(case, indent=1)
    # Lists of scalars (shapes, data) on one line, as in the conformance corpus.
    text = re.sub(r"\[\s*([^\[\]{}]*?)\s*\]", lambda m: "[" + re.sub(r"\s*\n\s*", " ", m.group(1)) + "]", text)
    with open(os.path.join(folder, "case.json"), "w") as f:
        f.write(text + "\n")


def main():
    names = sys.argv[1:] or sorted(CASES)
    for n in names:
        generate(n)
        print("ok", n)


if __name__ == "__main__":
    main()
