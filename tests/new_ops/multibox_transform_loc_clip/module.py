# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(cls_pred: R.Tensor((2, 3, 5), dtype="float32"), loc_pred: R.Tensor((2, 20), dtype="float32"), anchor: R.Tensor((1, 5, 4), dtype="float32")) -> R.Tuple(R.Tensor((2, 5, 4), dtype="float32"), R.Tensor((2, 3, 5), dtype="float32")):
        with R.dataflow():
            gv: R.Tuple(R.Tensor((2, 5, 4), dtype="float32"), R.Tensor((2, 3, 5), dtype="float32")) = R.vision.multibox_transform_loc(cls_pred, loc_pred, anchor, clip=True, threshold=0.29999999999999999, variances=[0.10000000000000001, 0.10000000000000001, 0.20000000000000001, 0.20000000000000001], keep_background=False, apply_softmax=True)
            R.output(gv)
        return gv
