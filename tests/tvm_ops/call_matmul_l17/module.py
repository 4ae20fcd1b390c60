# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((6, 7), dtype="int32"), a1: R.Tensor((7, 5), dtype="int32")) -> R.Tensor((6, 5), dtype="int32"):
        gv: R.Tensor((6, 5), dtype="int32") = R.matmul(a0, a1, out_dtype=None)
        return gv
