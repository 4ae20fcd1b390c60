# passes: LegalizeOps, AnnotateTIROpPattern, FuseOps, FuseTIR, DeadCodeElimination
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), w: R.Tensor((3, 4), dtype="float32"), b: R.Tensor((4,), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        with R.dataflow():
            h: R.Tensor((2, 4), dtype="float32") = R.matmul(x, w, out_dtype=None)
            h1: R.Tensor((2, 4), dtype="float32") = R.add(h, b)
            h2: R.Tensor((2, 4), dtype="float32") = R.nn.relu(h1)
            R.output(h2)
        return h2
