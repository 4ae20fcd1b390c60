@tvm.script.ir_module
class Conv3dTranspose:
    @R.function
    def main(x: R.Tensor((2, 3, 4, 4, 4), "float32"), w: R.Tensor((3, 4, 3, 3, 3), "float32")):
        gv = R.nn.conv3d_transpose(x, w, out_dtype="float16")
        return gv
