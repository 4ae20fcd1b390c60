# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((2, 4), dtype="int8"), a1: R.Tensor((2,), dtype="float32"), a2: R.Tensor((2,), dtype="int8")) -> R.Tensor((2, 4), dtype="float32"):
        gv: R.Tensor((2, 4), dtype="float32") = R.dequantize(a0, a1, a2, out_dtype="float32", axis=0)
        return gv
