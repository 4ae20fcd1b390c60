from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32"), y: R.Tensor((3,), "float32")):
        @R.function
        def add_y(a: R.Tensor((3,), "float32")):
            return R.add(a, y)

        return add_y(add_y(R.exp(x)))
