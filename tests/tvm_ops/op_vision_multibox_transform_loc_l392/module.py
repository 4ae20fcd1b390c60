# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((1, 3, 5), dtype="float32"), a1: R.Tensor((1, 20), dtype="float32"), a2: R.Tensor((1, 5, 4), dtype="float32")) -> R.Tuple(R.Tensor((1, 5, 4), dtype="float32"), R.Tensor((1, 3, 5), dtype="float32")):
        gv: R.Tuple(R.Tensor((1, 5, 4), dtype="float32"), R.Tensor((1, 3, 5), dtype="float32")) = R.vision.multibox_transform_loc(a0, a1, a2, clip=False, threshold=0.0, variances=[1.0, 1.0, 1.0, 1.0], keep_background=True, apply_softmax=True)
        return gv
