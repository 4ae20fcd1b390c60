# passes: LambdaLift
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32"), y: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        @R.function
        def inner(a: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
            b: R.Tensor((3,), dtype="float32") = R.multiply(a, y)
            return b

        @R.function
        def plain(a: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
            b: R.Tensor((3,), dtype="float32") = R.add(a, a)
            return b

        z: R.Tensor((3,), dtype="float32") = inner(x)
        w: R.Tensor((3,), dtype="float32") = plain(z)
        return w
