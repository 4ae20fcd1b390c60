# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(theta: R.Tensor((1, 2, 3), dtype="float32")) -> R.Tensor((1, 2, 4, 3), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((1, 2, 4, 3), dtype="float32") = R.image.affine_grid(theta, R.shape([4, 3]), align_corners=True)
            R.output(gv)
        return gv
