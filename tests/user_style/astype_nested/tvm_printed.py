# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float16"):
        gv: R.Tensor((2, 3), dtype="int32") = R.astype(x, dtype="int32")
        gv1: R.Tensor((2, 3), dtype="float32") = R.astype(gv, dtype="float32")
        gv2: R.Tensor((2, 3), dtype="float32") = R.add(x, gv1)
        gv3: R.Tensor((2, 3), dtype="float16") = R.astype(gv2, dtype="float16")
        return gv3
