module @two_results {
  func.func public @main(%arg0: tensor<2x2xi64>, %arg1: tensor<2xf32>) -> tensor<2x2xi64> {
    %t = "stablehlo.after_all"() : () -> !stablehlo.token
    %results0, %results1 = "stablehlo.recv"(%t) {
      channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>,
      is_host_transfer = true
    } : (!stablehlo.token) -> (tensor<2x2xi64>, !stablehlo.token)
    %p:2 = "stablehlo.optimization_barrier"(%results0, %arg1) : (tensor<2x2xi64>, tensor<2xf32>) -> (tensor<2x2xi64>, tensor<2xf32>)
    return %p#0 : tensor<2x2xi64>
  }
}
