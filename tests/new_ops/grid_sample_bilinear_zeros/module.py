# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 3, 4), dtype="float32"), grid: R.Tensor((1, 2, 3, 5), dtype="float32")) -> R.Tensor((1, 2, 3, 5), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((1, 2, 3, 5), dtype="float32") = R.image.grid_sample(x, grid, method="bilinear", layout="NCHW", padding_mode="zeros", align_corners=False)
            R.output(gv)
        return gv
