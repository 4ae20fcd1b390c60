# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(cls_pred: R.Tensor((2, 3, 5), dtype="float32"), loc_pred: R.Tensor((2, 20), dtype="float32"), anchor: R.Tensor((1, 5, 4), dtype="float32")) -> R.Tuple(R.Tensor((2, 5, 4), dtype="float32"), R.Tensor((2, 3, 5), dtype="float32")):
        with R.dataflow():
            gv: R.Tuple(R.Tensor((2, 5, 4), dtype="float32"), R.Tensor((2, 3, 5), dtype="float32")) = R.vision.multibox_transform_loc(cls_pred, loc_pred, anchor, clip=False, threshold=0.0, variances=[1.0, 1.0, 1.0, 1.0], keep_background=True, apply_softmax=True)
            R.output(gv)
        return gv
