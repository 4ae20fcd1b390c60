# passes: CanonicalizeBindings
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        with R.dataflow():
            a: R.Tensor((3,), dtype="float32") = x
            b: R.Tensor((3,), dtype="float32") = a
            c: R.Tensor((3,), dtype="float32") = R.add(b, a)
            d: R.Tensor((3,), dtype="float32") = c
            R.output(d)
        return d
