# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(boxes: R.Tensor((2, 7, 4), dtype="float32"), scores: R.Tensor((2, 3, 7), dtype="float32")) -> R.Tuple(R.Tensor((42, 3), dtype="int64"), R.Tensor((1,), dtype="int64")):
        with R.dataflow():
            gv: R.Tuple(R.Tensor((42, 3), dtype="int64"), R.Tensor((1,), dtype="int64")) = R.vision.all_class_non_max_suppression(boxes, scores, R.const(3, "int64"), R.const(0.40000000596046448, "float32"), R.const(0.20000000298023224, "float32"), output_format="onnx")
            R.output(gv)
        return gv
