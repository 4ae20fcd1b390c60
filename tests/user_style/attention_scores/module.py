from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((4, 8), "float32"), k: R.Tensor((4, 8), "float32"), v: R.Tensor((4, 8), "float32")):
        with R.dataflow():
            p = R.nn.softmax(R.divide(R.matmul(q, R.permute_dims(k)), R.const(2.8284271247461903, "float32")), axis=-1)
            o = R.matmul(p, v)
            R.output(o)
        return o
