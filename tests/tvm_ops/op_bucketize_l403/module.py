# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((2, 3), dtype="float32"), a1: R.Tensor((5,), dtype="float32")) -> R.Tensor((2, 3), dtype="int32"):
        gv: R.Tensor((2, 3), dtype="int32") = R.bucketize(a0, a1, out_int32=True, right=False)
        return gv
