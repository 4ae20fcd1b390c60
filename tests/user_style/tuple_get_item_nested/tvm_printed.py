# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), dtype="float32")) -> R.Tensor((2, 2), dtype="float32"):
        gv: R.Tuple(R.Tensor((2, 2), dtype="float32"), R.Tensor((2, 2), dtype="float32")) = R.split(x, indices_or_sections=2, axis=1)
        gv1: R.Tensor((2, 2), dtype="float32") = gv[0]
        gv2: R.Tuple(R.Tensor((2, 2), dtype="float32"), R.Tensor((2, 2), dtype="float32")) = R.split(x, indices_or_sections=2, axis=1)
        gv3: R.Tensor((2, 2), dtype="float32") = gv2[1]
        gv4: R.Tensor((2, 2), dtype="float32") = R.add(gv1, gv3)
        return gv4
