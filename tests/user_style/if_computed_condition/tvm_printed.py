# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        gv: R.Tensor((), dtype="float32") = R.sum(x, axis=None, keepdims=False)
        c: R.Tensor((), dtype="bool") = R.greater(gv, R.const(0.0, "float32"))
        if c:
            gv2: R.Tensor((3,), dtype="float32") = R.abs(x)
            r_then: R.Tensor((3,), dtype="float32") = R.sqrt(gv2)
            r: R.Tensor((3,), dtype="float32") = r_then
        else:
            r: R.Tensor((3,), dtype="float32") = x
        return r
