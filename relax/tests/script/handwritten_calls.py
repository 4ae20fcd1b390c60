# Hand-written forms of TVM's tests: packed calls, DPS calls, in-place calls, symbolic tir_vars.
n = TypeVar("n")
@I.ir_module
class Module:
    I.module_attrs({"system_lib_prefix": "lib_", "opt_level": 3})

    @T.prim_func
    def copy(A: T.Buffer((n,), "float32"), B: T.Buffer((n,), "float32")):
        for i in range(n):
            B[i] = A[i]

    @T.prim_func
    def shift(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32"), k: T.int64):
        for i in range(4):
            B[i] = A[i]

    @R.function(pure=False)
    def impure(x: R.Tensor((n,), "float32")) -> R.Tensor(("n",), dtype="float32"):
        R.func_attr({"relax.force_pure": False, "note": "hand written"})
        R.call_packed("test.print", x, R.str("x"), 3, 1.5, True, sinfo_args=R.Tuple())
        R.print(x, format=R.str("x = {}"))
        y = R.call_packed("test.copy", x, ty_args=[R.Tensor((n,), "float32")])
        return y

    @R.function
    def main(x: R.Tensor(("n",), "float32"), s: R.Shape(["m", "n * 2"]), flag: R.Prim("bool")) -> R.Tuple(R.Tensor(ndim=1), R.Tensor((4,), "float32")):
        m = T.int64()
        cls = Module
        a = R.call_tir(cls.copy, x, R.Tensor((n,), dtype="float32"))
        b = R.call_dps_packed("test.dps", (a,), out_sinfo=R.Tensor((n,), "float32"))
        c = R.call_pure_packed("test.pure", b, R.prim_value(T.int64(1)), ty_args=(R.Tensor((n,), "float32"),))
        z = R.call_tir(cls.shift, (R.const([1, 2, 3, 4], "float32"),), out_ty=R.Tensor((4,), "float32"), tir_vars=R.shape([m]))
        w = R.call_tir_inplace(cls.shift, (z,), [0], [R.Tensor((4,), "float32")], tir_vars=R.shape([2]))
        f: R.Object = R.ExternFunc("test.extern")
        h = R.call_builtin_with_ctx("vm.builtin.alloc_shape_heap", [R.prim_value(2)], ty_args=[R.Tensor(ndim=1, dtype="int64")])
        t = (c, w[0])
        return t
