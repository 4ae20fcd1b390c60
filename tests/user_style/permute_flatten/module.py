from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32")):
        return R.flatten(R.permute_dims(R.exp(x), axes=[2, 0, 1]))
