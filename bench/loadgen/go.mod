module kubemod-ts/bench/loadgen

go 1.22
