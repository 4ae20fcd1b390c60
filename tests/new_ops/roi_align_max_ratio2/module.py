# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(data: R.Tensor((2, 3, 6, 7), dtype="float32"), rois: R.Tensor((3, 5), dtype="float32")) -> R.Tensor((3, 3, 3, 3), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((3, 3, 3, 3), dtype="float32") = R.vision.roi_align(data, rois, pooled_size=[3, 3], spatial_scale=0.5, sample_ratio=2, aligned=False, layout="NCHW", mode="max")
            R.output(gv)
        return gv
