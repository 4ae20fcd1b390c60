@tvm.script.ir_module
class Mod:
    @R.function
    def main(
        cls: R.Tensor((1, 3, 4), "float32"),
        loc: R.Tensor((1, 16), "float32"),
        anc: R.Tensor((1, 4, 4), "float32"),
    ) -> R.Tuple(R.Tensor((1, 4, 4), "float32"), R.Tensor((1, 3, 4), "float32")):
        return R.vision.multibox_transform_loc(
            cls,
            loc,
            anc,
            clip=True,
            threshold=0.4,
            variances=(1.0, 1.0, 1.0, 1.0),
            keep_background=False,
        )
