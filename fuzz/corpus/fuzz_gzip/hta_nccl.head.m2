Ú{
"traceEvents": [
{
    "ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: DivBackward1", "pid": 2910249, "tid": 2919752,
    "ts": 4458676522690.655, "dur": 156.777,
    "args": {
      "External id": 2049,"Record function id": 1909, "Sequence number": 1080, "Fwd thread id": 1, "Ev Idx": 0
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "DivBackward1", "pid": 2910249, "tid": 2919752,
    "ts": 4458676522709.059, "dur": 126.011,
    "args": {
      "External id": 2050,"Record function id": 1910, "Sequence number": 1080, "Fwd thread id": 1, "Ev Idx": 1
    }
  },
{
    "ph": "f", "id": 1, "pid": 2910249, "tid": 2919752, "ts": 4458676522709.059,
    "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::div", "pid": 2910249, "tid": 2919752,
    "ts": 4458676522718.702, "dur": 108.515,
    "args": {
      "External id": 2051,"Record function id": 1911, "Ev Idx": 2
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::div", "pid": 2910249, "tid": 2919752,
    "ts": 4458676522732.715, "dur": 71.468,
    "args": {
      "External id": 2052,"Record function id": 1912, "Ev Idx": 3
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: NegBackward0", "pid": 2910249, "tid": 2919752,
    "ts": 4458676522873.933, "dur": 97.762,
    "args": {
      "External id": 2053,"Record function id": 1913, "Sequence number": 1079, "Fwd thread id": 1, "Ev Idx": 4
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "NegBackward0", "pid": 2910249, "tid": 2919752,
    "ts": 4458676522879.660, "dur": 79.682,
    "args": {
      "External id": 2054,"Record function id": 1914, "Sequence number": 1079, "Fwd thread id": 1, "Ev Idx": 5
    }
  },
{
    "ph": "f", "id": 2, "pid": 2910249, "tid": 2919752, "ts": 4458676522879.660,
    "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::neg", "pid": 2910249, "tid": 2919752,
    "ts": 4458676522884.154, "dur": 68.319,
    "args": {
      "External id": 2055,"Record function id": 1915, "Ev Idx": 6
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: SumBackward0", "pid": 2910249, "tid": 2919752,
    "ts": 4458676522995.784, "dur": 113.228,
    "args": {
      "External id": 2056,"Record function id": 1916, "Sequence number": 1078, "Fwd thread id": 1, "Ev Idx": 7
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "SumBackward0", "pid": 2910249, "tid": 2919752,
    "ts": 4458676523002.038, "dur": 97.495,
    "args": {
      "External id": 2057,"Record function id": 1917, "Sequence number": 1078, "Fwd thread id": 1, "Ev Idx": 8
    }
  },
{
    "ph": "f", "id": 3, "pid": 2910249, "tid": 2919752, "ts": 4458676523002.038,
    "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::expand", "pid": 2910249, "tid": 2919752,
    "ts": 4458676523016.047, "dur": 76.820,
    "args": {
      "External id": 2058,"Record function id": 1918, "Ev Idx": 9
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::as_strided", "pid": 2910249, "tid": 2919752,
    "ts": 4458676523033.190, "dur": 30.496,
    "args": {
      "External id": 2059,"Record function id": 1919, "Ev Idx": 10
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: MulBackward0", "pid": 2910249, "tid": 2919752,
    "ts": 4458676523131.381, "dur": 86.489,
    "args": {
      "External id": 2060,"Record function id": 1920, "Sequence number": 1077, "Fwd thread id": 1, "Ev Idx": 11
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "MulBackward0", "pid": 2910249, "tid": 2919752,
    "ts": 4458676523137.044, "dur": 68.769,
    "args": {
      "External id": 2061,"Record function id": 1921, "Sequence number": 1077, "Fwd thread id": 1, "Ev Idx": 12
    }
  },
{
    "ph": "f", "id": 4, "pid": 2910249, "tid": 2919752, "ts": 4458676523137.044,
    "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 2910249, "tid": 2919752,
    "ts": 4458676523146.012, "dur": 52.874,
    "args": {
      "External id": 2062,"Record function id": 1922, "Ev Idx": 13
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: LogSoftmaxBackward0", "pid": 2910249, "tid": 2919752,
    "ts": 4458676523241.418, "dur": 108.357,
    "args": {
      "External id": 2063,"Record function id": 1923, "Sequence number": 1076, "Fwd thread id": 1, "Ev Idx": 14
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "LogSoftmaxBackward0", "pid": 2910249, "tid": 2919752,
    "ts": 4458676523247.968, "dur": 88.391,
    "args": {
      "External id": 2064,"Record function id": 1924, "Sequence number": 1076, "Fwd thread id": 1, "Ev Idx": 15
    }
  },
{
    "ph": "f", "id": 5, "pid": 2910249, "tid": 2919752, "ts": 4458676523247.968,
    "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::_log_softmax_backward_data", "pid": 2910249, "tid": 2919752,
    "ts": 4458676523262.001, "dur": 50.042,
    "args": {
      "External id": 2065,"Record function id": 1925, "Ev Idx": 16
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: AddmmBackward0", "pid": 2910249, "tid": 2919752,
    "ts": 4458676523372.899, "dur": 664.727,
    "args": {
      "External id": 2066,"Record function id": 1926, "Sequence number": 1075, "Fwd thread id": 1, "Ev Idx": 17
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "AddmmBackward0", "pid": 2910249, "tid": 2919752,
    "ts": 4458676523378.964, "dur": 524.356,
    "args": {
      "External id": 2067,"Record function id": 1927, "Sequence number": 1075, "Fwd thread id": 1, "Ev Idx": 18
    }
  },
{
    "ph": "f", "id": 6, "pid": 2910249, "tid": 2919752, "ts": 4458676523378.964,
    "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::t", "pid": 2910249, "tid": 2919752,
    "ts": 4458676523386.012, "dur": 120.244,
    "args": {
      "External id": 2068,"Record function id": 1928, "Ev Idx": 19
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::transpose", "pid": 2910249, "tid": 2919752,
    "ts": 4458676523394.101, "dur": 67.778,
    "args": {
      "External id": 2069,"Record function id": 1929, "Ev Idx": 20
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::as_strided", "pid": 2910249, "tid": 2919752,
    "ts": 4458676523409.288, "dur": 26.597,
    "args": {
      "External id": 2070,"Record function id": 1930, "Ev Idx": 21
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 2910249, "tid": 2919752,
    "ts": 4458676523516.223, "dur": 97.580,
    "args": {
      "External id": 2071,"Record function id": 1931, "Ev Idx": 22
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::t", "pid": 2910249, "tid": 2919752,
    "ts": 4458676523624.173, "dur": 91.293,
    "args": {
      "External id": 2072,"Record function id": 1932, "Ev Idx": 23
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::transpose", "pid": 2910249, "tid": 2919752,
    "ts": 4458676523631.222, "dur": 62.377,
    "args": {
      "External id": 2073,"Record function id": 1933, "Ev Idx": 24
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::as_strided", "pid": 2910249, "tid": 2919752,
    "ts": 4458676523645.417, "dur": 25.281,
    "args": {
      "External id": 2074,"Record function id": 1934, "Ev Idx": 25
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 2910249, "tid": 2919752,
    "ts": 4458676523724.688, "dur": 57.217,
    "args": {
      "External id": 2075,"Record function id": 1935, "Ev Idx": 26
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::t", "pid": 2910249, "tid": 2919752,
    "ts": 4458676523788.685, "dur": 106.100,
    "args": {
      "External id": 2076,"Record function id": 1936, "Ev Idx": 27
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::transpose", "pid": 2910249, "tid": 2919752,
    "ts": 4458676523795.372, "dur": 77.681,
    "args": {
      "External id": 2077,"Record function id": 1937, "Ev Idx": 28
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::as_strided", "pid": 2910249, "tid": 2919752,
    "ts": 4458676523808.677, "dur": 41.328,
    "args": {
      "External id": 2078,"Record function id": 1938, "Ev Idx": 29
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::sum", "pid": 2910249, "tid": 2919752,
    "ts": 4458676523917.267, "dur": 58.568,
    "args": {
      "External id": 2079,"Record function id": 1939, "Ev Idx": 30
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::view", "pid": 2910249, "tid": 2919752,
    "ts": 4458676523987.741, "dur": 24.738,
    "args": {
      "External id": 2080,"Record function id": 1940, "Ev Idx": 31
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", "pid": 2910249, "tid": 2919752,
    "ts": 4458676524070.852, "dur": 172.131,
    "args": {
      "External id": 2081,"Record function id": 1941, "Ev Idx": 32
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "torch::autograd::AccumulateGrad", "pid": 2910249, "tid": 2919752,
    "ts": 4458676524079.792, "dur": 49.837,
    "args": {
      "External id": 2082,"Record function id": 1942, "Ev Idx": 33
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::detach", "pid": 2910249, "tid": 2919752,
    "ts": 4458676524087.885, "dur": 35.088,
    "args": {
      "External id": 2083,"Record function id": 1943, "Ev Idx": 34
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "detach", "pid": 2910249, "tid": 2919752,
    "ts": 4458676524092.428, "dur": 9.136,
    "args": {
      "External id": 2084,"Record function id": 1944, "Ev Idx": 35
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "torch::distributed::reducer::mul_out", "pid": 2910249, "tid": 2919752,
    "ts": 4458676524146.871, "dur": 83.544,
    "args": {
      "External id": 2085,"Record function id": 1945, "Ev Idx": 36
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 2910249, "tid": 2919752,
    "ts": 4458676524157.539, "dur": 49.711,
    "args": {
      "External id": 2086,"Record function id": 1946, "Ev Idx": 37
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: TBackward0", "pid": 2910249, "tid": 2919752,
    "ts": 4458676524268.072, "dur": 119.936,
    "args": {
      "External id": 2087,"Record function id": 1947, "Sequence number": 1074, "Fwd thread id": 1, "Ev Idx": 38
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "TBackward0", "pid": 2910249, "tid": 2919752,
    "ts": 4458676524274.762, "dur": 102.966,
    "args": {
      "External id": 2088,"Record function id": 1948, "Sequence number": 1074, "Fwd thread id": 1, "Ev Idx": 39
    }
  },
{
    "ph": "f", "id": 7, "pid": 2910249, "tid": 2919752, "ts": 4458676524274.762,
    "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::t", "pid": 2910249, "tid": 2919752,
    "ts": 4458676524279.289, "dur": 92.256,
    "args": {
      "External id": 2089,"Record function id": 1949, "Ev Idx": 40
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::transpose", "pid": 2910249, "tid": 2919752,
    "ts": 4458676524286.542, "dur": 63.086,
    "args": {
      "External id": 2090,"Record function id": 1950, "Ev Idx": 41
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::as_strided", "pid": 2910249, "tid": 2919752,
    "ts": 4458676524301.301, "dur": 24.946,
    "args": {
      "External id": 2091,"Record function id": 1951, "Ev Idx": 42
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", "pid": 2910249, "tid": 2919752,
    "ts": 4458676524412.847, "dur": 507.590,
    "args": {
      "External id": 2092,"Record function id": 1952, "Ev Idx": 43
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "torch::autograd::AccumulateGrad", "pid": 2910249, "tid": 2919752,
    "ts": 4458676524420.623, "dur": 43.141,
    "args": {
      "External id": 2093,"Record function id": 1953, "Ev Idx": 44
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::detach", "pid": 2910249, "tid": 2919752,
    "ts": 4458676524425.738, "dur": 31.717,
    "args": {
      "External id": 2094,"Record function id": 1954, "Ev Idx": 45
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "detach", "pid": 2910249, "tid": 2919752,
    "ts": 4458676524429.514, "dur": 7.857,
    "args": {
      "External id": 2095,"Record function id": 1955, "Ev Idx": 46
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "torch::distributed::reducer::mul_out", "pid": 2910249, "tid": 2919752,
    "ts": 4458676524483.332, "dur": 73.891,
    "args": {
      "External id": 2096,"Record function id": 1956, "Ev Idx": 47
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 2910249, "tid": 2919752,
    "ts": 4458676524492.841, "dur": 44.407,
    "args": {
      "External id": 2097,"Record function id": 1957, "Ev Idx": 48
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "c10d::allreduce_", "pid": 2910249, "tid": 2919752,
    "ts": 4458676524595.135, "dur": 294.370,
    "args": {
      "External id": 2098,"Record function id": 1958, "Ev Idx": 49
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 2910249, "tid": 2919752,
    "ts": 4458676524648.797, "dur": 189.626,
    "args": {
      "External id": 2099,"Record function id": 1959, "Process Group Name": "0", "Global rank stride": 1, "Out msg nelems": 2049000, "Process Group Ranks": "[0, 1]", "Group size": 2, "Global rank start": 0, "Ev Idx": 50, "In msg nelems": 2049000, "In split size": "[]", "Out split size": "[]", "dtype": "Float", "Process Group Description": "default_pg", "Collective name": "allreduce"
    }
  },
{
    "ph": "X", "cat": "user_annotation", "name": "nccl:all_reduce", "pid": 2910249, "tid": 2919752,
    "ts": 4458676524670.502, "dur": 92.804,
    "args": {
      "External id": 2100,"Record function id": 1960, "Ev Idx": 51
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: ViewBackward0", "pid": 2910249, "tid": 2919752,
    "ts": 4458676524945.220, "dur": 98.201,
    "args": {
      "External id": 2101,"Record function id": 1961, "Sequence number": 1073, "Fwd thread id": 1, "Ev Idx": 52
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "ViewBackward0", "pid": 2910249, "tid": 2919752,
    "ts": 4458676524953.295, "dur": 80.222,
    "args": {
      "External id": 2102,"Record function id": 1962, "Sequence number": 1073, "Fwd thread id": 1, "Ev Idx": 53
    }
  }
],
"schemaVersion": 1,
"distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 2, "pg_count": 1, "pg_config": [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl", "pg_size": 2, "ranks": [0, 1]}], "nccl_version": "2.17.1"},
"INFO": ["INFO:2024-05-22 17:15:22 2910249:2910249 CuptiActivityProfiler.cpp:976] Enabling GPU tracing", "INFO:2024-05-22 17:15:22 2910249:2910249 CuptiActivityProfiler.cpp:906] Evaluating whether to run child profiler = NcclProfiler", "INFO:2024-05-22 17:15:22 2910249:2910249 CuptiActivityProfiler.cpp:906] Evaluating whether to run child profiler = CuptiRangeProfiler", "INFO:2024-05-22 17:15:22 2910249:2910249 CuptiActivityProfiler.cpp:1030] Tracing starting in 6s", "INFO:2024-05-22 17:15:22 2910249:2910249 CuptiActivityProfiler.cpp:1035] Tracing will end in 7s", "INFO:2024-05-22 17:15:23 2910249:2910249 CuptiActivityProfiler.cpp:266] Processing 1 CPU buffers", "INFO:2024-05-22 17:15:23 2910249:2910249 CuptiActivityProfiler.cpp:297] Processed 127395 GPU records (4774824 bytes)", "INFO:2024-05-22 17:15:23 2910249:2910249 CuptiActivityProfiler.cpp:333] Record counts: Out-of-range = 4181, Blocklisted runtime = 37458, Invalid ext correlations = 0, CPU GPU out-of-order = 0, Unexpected CUDA events = 0, CUPTI stopped early? = 0", "INFO:2024-05-22 17:15:23 2910249:2910249 CuptiActivityProfiler.cpp:1217] Traces Recorded:", "INFO:2024-05-22 17:15:23 2910249:2910249 CuptiActivityProfiler.cpp:1220] PyTorch Profiler: 1 iterations"],
"traceName": "/tmp/tmpu3g3sevh.json",
"displayTimeUnit": "ms",
"baseTimeNanoseconds": 1711964646000000000
}
