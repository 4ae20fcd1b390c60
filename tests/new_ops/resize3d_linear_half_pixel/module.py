# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 3, 4, 5), dtype="float32")) -> R.Tensor((1, 2, 5, 3, 7), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((1, 2, 5, 3, 7), dtype="float32") = R.image.resize3d(x, R.shape([5, 3, 7]), roi=[T.float32(0.0), T.float32(0.0), T.float32(0.0), T.float32(0.0), T.float32(0.0), T.float32(0.0)], layout="NCDHW", method="linear", coordinate_transformation_mode="half_pixel", rounding_method="", cubic_alpha=-0.75, cubic_exclude=0, extrapolation_value=0.0, out_dtype=None)
            R.output(gv)
        return gv
