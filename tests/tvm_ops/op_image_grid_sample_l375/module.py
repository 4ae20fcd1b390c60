# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((2, 3, 4, 5), dtype="float32"), a1: R.Tensor((2, 2, 6, 7), dtype="float32")) -> R.Tensor((2, 3, 6, 7), dtype="float32"):
        gv: R.Tensor((2, 3, 6, 7), dtype="float32") = R.image.grid_sample(a0, a1, method="bilinear", layout="NCHW", padding_mode="zeros", align_corners=False)
        return gv
