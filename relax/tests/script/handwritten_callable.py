# from tvm.script import ir as I
# from tvm.script import relax as R

# `R.Callable` with `derive_func`, which TVM 0.27 reads and never prints (it keeps it only on
# an opaque callable, in place of `ret`).
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2, 3), dtype="float32"), f: R.Callable((R.Tensor((2, 3), dtype="float32"),), R.Tensor((2, 3), dtype="float32"), derive_func="tvm.relax.struct_info.infer_view_sinfo"), g: R.Callable(derive_func="tvm.relax.struct_info.infer_view_sinfo", purity=True)) -> R.Tensor((2, 3), dtype="float32"):
        h: R.Callable((R.Tensor((2, 3), dtype="float32"),), R.Tensor((2, 3), dtype="float32"), True, "tvm.relax.struct_info.infer_view_sinfo") = f
        y: R.Tensor((2, 3), dtype="float32") = h(x)
        return y
