# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((1, 3, 5, 7), dtype="float32")) -> R.Tensor((1, 3, 10, 14), dtype="float32"):
        gv: R.Tensor((1, 3, 10, 14), dtype="float32") = R.image.resize2d(a0, R.shape([10, 14]), roi=[T.float32(0.0), T.float32(0.0), T.float32(0.0), T.float32(0.0)], layout="NCHW", method="nearest_neighbor", coordinate_transformation_mode="asymmetric", rounding_method="floor", cubic_alpha=-0.75, cubic_exclude=0, extrapolation_value=0.0, out_dtype=None)
        return gv
