@tvm.script.ir_module
class Resize3D:
    @R.function
    def main(x: R.Tensor((2, 3, 8, 8, 8), "float32")) -> R.Tensor((2, 3, 4, 6, 7), "float32"):
        gv: R.Tensor((2, 3, 4, 6, 7), "float32") = R.image.resize3d(
            x,
            size=(4, 6, 7),
            layout="NCDHW",
            method="nearest_neighbor",
            coordinate_transformation_mode="asymmetric",
            rounding_method="floor",
        )
        return gv
