# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((2, 2, 3), dtype="float32")) -> R.Tensor((2, 2, 4, 5), dtype="float32"):
        gv: R.Tensor((2, 2, 4, 5), dtype="float32") = R.image.affine_grid(a0, R.shape([4, 5]), align_corners=True)
        return gv
