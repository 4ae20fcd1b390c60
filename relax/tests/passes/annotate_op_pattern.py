# passes: LegalizeOps, AnnotateTIROpPattern
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((3,), dtype="float32"), w: R.Tensor((3, 4), dtype="float32")) -> R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2,), dtype="float32"), R.Tensor((2, 4), dtype="float32")):
        with R.dataflow():
            a: R.Tensor((2, 3), dtype="float32") = R.exp(x)
            b: R.Tensor((2, 3), dtype="float32") = R.add(a, y)
            c: R.Tensor((2,), dtype="float32") = R.sum(b, axis=[1], keepdims=False)
            d: R.Tensor((2, 4), dtype="float32") = R.matmul(b, w, out_dtype=None)
            gv: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2,), dtype="float32"), R.Tensor((2, 4), dtype="float32")) = b, c, d
            R.output(gv)
        return gv
