# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 1, 3, 4, 4), dtype="float32")) -> R.Tensor((1, 1, 3, 4, 5), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((1, 1, 3, 4, 5), dtype="float32") = R.image.resize3d(x, R.shape([3, 4, 5]), roi=[T.float32(0.125), T.float32(-0.25), T.float32(0.0), T.float32(0.875), T.float32(1.25), T.float32(1.375)], layout="NCDHW", method="linear", coordinate_transformation_mode="tf_crop_and_resize", rounding_method="", cubic_alpha=-0.75, cubic_exclude=0, extrapolation_value=-1.0, out_dtype=None)
            R.output(gv)
        return gv
