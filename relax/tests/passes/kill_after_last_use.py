# passes: KillAfterLastUse
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        o: R.Tensor((), dtype="float32") = R.const(2.0, "float32")
        y: R.Tensor((3,), dtype="float32") = R.multiply(x, o)
        z: R.Tensor((3,), dtype="float32") = R.add(y, o)
        t: R.Tuple(R.Tensor((3,), dtype="float32")) = (z,)
        u: R.Tensor((3,), dtype="float32") = t[0]
        w: R.Tensor((3,), dtype="float32") = R.add(u, y)
        return w
