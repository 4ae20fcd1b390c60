# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(theta: R.Tensor((1, 3, 4), dtype="float32")) -> R.Tensor((1, 3, 2, 3, 4), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((1, 3, 2, 3, 4), dtype="float32") = R.image.affine_grid(theta, R.shape([2, 3, 4]), align_corners=False)
            R.output(gv)
        return gv
