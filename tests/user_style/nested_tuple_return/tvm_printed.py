# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tuple(R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="float32")), R.Tensor((2, 3), dtype="float32")):
        gv: R.Tensor((2, 3), dtype="float32") = R.exp(x)
        gv1: R.Tensor((2, 3), dtype="float32") = R.negative(x)
        gv2: R.Tensor((2, 3), dtype="float32") = R.add(x, gv1)
        return ((x, gv), gv2)
