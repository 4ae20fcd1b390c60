# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((2, 6), dtype="float32")) -> R.Tensor((2, 6), dtype="float32"):
        gv: R.Tensor((2, 6), dtype="float32") = R.split(a0, indices_or_sections=1, axis=1)
        return gv
