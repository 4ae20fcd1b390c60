# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(data: R.Tensor((2, 3, 6, 7), dtype="float32"), rois: R.Tensor((3, 5), dtype="float32")) -> R.Tensor((3, 3, 2, 3), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((3, 3, 2, 3), dtype="float32") = R.vision.roi_align(data, rois, pooled_size=[2, 3], spatial_scale=1.0, sample_ratio=-1, aligned=False, layout="NCHW", mode="avg")
            R.output(gv)
        return gv
