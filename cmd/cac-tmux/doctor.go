package main

import "github.com/spf13/cobra"

func newDoctor(std stdio) *cobra.Command { return &cobra.Command{Use: "doctor", Hidden: true} }
