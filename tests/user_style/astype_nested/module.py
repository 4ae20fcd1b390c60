from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        return R.astype(R.add(x, R.astype(R.astype(x, "int32"), "float32")), "float16")
