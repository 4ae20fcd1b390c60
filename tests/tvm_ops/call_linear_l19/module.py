# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((5, 32), dtype="float32"), a1: R.Tensor((16, 32), dtype="float32"), a2: R.Tensor((16,), dtype="float32")) -> R.Tensor((5, 16), dtype="float32"):
        gv: R.Tensor((32, 16), dtype="float32") = R.permute_dims(a1, axes=None)
        gv1: R.Tensor((5, 16), dtype="float32") = R.matmul(a0, gv, out_dtype=None)
        gv_1: R.Tensor((5, 16), dtype="float32") = R.add(gv1, a2)
        return gv_1
