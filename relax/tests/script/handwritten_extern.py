# from tvm.script import ir as I
# from tvm.script import relax as R

# Extern functions as TVM 0.27 prints a module holding `relax.ExternFunc`s: module-level
# declarations with and without a type (an opaque one too), called through `cls`, and an
# extern function bound to a variable inside a function and called through it.
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        cls = Module
        gv: R.Tensor((2, 3), dtype="float32") = cls.ext1(x)
        gv1: R.Callable((R.Tensor((2, 3), dtype="float32"),), R.Tensor((2, 3), dtype="float32"), True) = R.ExternFunc("my_ext_sym", R.Callable((R.Tensor((2, 3), dtype="float32"),), R.Tensor((2, 3), dtype="float32"), True))
        gv2: R.Tensor((2, 3), dtype="float32") = gv1(gv)
        gv3 = cls.untyped(gv2)
        gv4: R.Tensor((2, 3), dtype="float32") = cls.opaque(gv2)
        return gv4

    zext = R.ExternFunc("z", R.Callable(ret=R.Tensor((T.int64(2), T.int64(3)), dtype="float32"), purity=True))
    ext1 = R.ExternFunc("my_ext_sym", R.Callable((R.Tensor((T.int64(2), T.int64(3)), dtype="float32"),), R.Tensor((T.int64(2), T.int64(3)), dtype="float32"), True))
    untyped = R.ExternFunc("ext1_sym")
    opaque = R.ExternFunc("opaque_sym", R.Callable(ret=R.Tensor((2, 3), dtype="float32")))
