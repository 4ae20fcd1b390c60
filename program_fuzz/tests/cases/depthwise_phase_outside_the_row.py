# finding: relaxjit.conv2d depthwise on strided phases: a column phase that meets no input column (stride 4, padding 2) sliced past the input row
# opfuzz: conv1d, seed 3754
# arg: float32 [1, 2, 2]
# arg: float32 [2, 1, 1]
# arg: float32 [2]
# arg: float32 [2]
# arg: float32 [2]
# arg: float32 [2]
# arg: float32 [2]
# inputs: seed 3612962629248725, integers
# compare: reduction 1
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 2), dtype="float32"), w: R.Tensor((2, 1, 1), dtype="float32"), gamma: R.Tensor((2,), dtype="float32"), beta: R.Tensor((2,), dtype="float32"), mean: R.Tensor((2,), dtype="float32"), var: R.Tensor((2,), dtype="float32"), bias: R.Tensor((2,), dtype="float32")):
        with R.dataflow():
            t0 = R.nn.conv1d(x, w, strides=[4], padding=[2, 3], dilation=[2], groups=2, data_layout="NCW", kernel_layout="OIW", out_layout="NCW", out_dtype="void")
            vpos = R.abs(var)
            bnt = R.nn.batch_norm(t0, gamma, beta, mean, vpos, axis=1, epsilon=1.0000000000000001e-05, center=True, scale=True, momentum=0.10000000000000001, training=False)
            t1 = bnt[0]
            t2 = R.add(t1, bias)
            t3 = R.nn.relu(t2)
            y = t3
            R.output(y)
        return y
