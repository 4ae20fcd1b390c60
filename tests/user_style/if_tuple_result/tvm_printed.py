# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32"), c: R.Tensor((), dtype="bool")) -> R.Tensor((3,), dtype="float32"):
        if c:
            gv: R.Tensor((3,), dtype="float32") = R.exp(x)
            r: R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")) = x, gv
        else:
            r: R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")) = x, x
        gv4: R.Tensor((3,), dtype="float32") = r[0]
        gv5: R.Tensor((3,), dtype="float32") = r[1]
        gv6: R.Tensor((3,), dtype="float32") = R.add(gv4, gv5)
        return gv6
