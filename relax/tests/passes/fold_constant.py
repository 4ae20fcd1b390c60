# passes: LegalizeOps, AnnotateTIROpPattern, FoldConstant
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        with R.dataflow():
            c: R.Tensor((), dtype="int32") = R.const(3, "int32")
            f: R.Tensor((), dtype="float32") = R.astype(c, dtype="float32")
            y: R.Tensor((2,), dtype="float32") = R.multiply(x, f)
            R.output(y)
        return y
