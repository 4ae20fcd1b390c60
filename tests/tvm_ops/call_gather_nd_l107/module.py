# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((4, 5, 6), dtype="float32"), a1: R.Tensor((3, 2), dtype="int64")) -> R.Tensor((3, 6), dtype="float32"):
        gv: R.Tensor((3, 6), dtype="float32") = R.gather_nd(a0, a1, batch_dims=0)
        return gv
