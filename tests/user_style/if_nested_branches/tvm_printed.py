# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), dtype="float32"), c: R.Tensor((), dtype="bool")) -> R.Tensor((2, 4), dtype="float32"):
        s: R.Tensor((2, 4), dtype="float32") = R.sigmoid(x)
        if c:
            gv1: R.Tensor((2, 4), dtype="float32") = R.exp(x)
            r_then: R.Tensor((2, 4), dtype="float32") = R.add(gv1, s)
            r: R.Tensor((2, 4), dtype="float32") = r_then
        else:
            r: R.Tensor((2, 4), dtype="float32") = s
        return r
