# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tuple(R.Tensor((3,), dtype="float32"), R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32"))):
        gv: R.Tensor((3,), dtype="float32") = R.exp(x)
        gv1: R.Tensor((3,), dtype="float32") = R.negative(x)
        t: R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")) = gv, gv1
        gv3: R.Tensor((3,), dtype="float32") = t[0]
        gv4: R.Tensor((3,), dtype="float32") = t[1]
        u: R.Tensor((3,), dtype="float32") = R.add(gv3, gv4)
        return (u, t)
