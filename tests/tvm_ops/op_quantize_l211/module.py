# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((2, 4), dtype="float32"), a1: R.Tensor((), dtype="float32"), a2: R.Tensor((), dtype="int8")) -> R.Tensor((2, 4), dtype="int8"):
        gv: R.Tensor((2, 4), dtype="int8") = R.quantize(a0, a1, a2, out_dtype="int8", axis=-1)
        return gv
